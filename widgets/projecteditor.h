#pragma once
// What views need from the open document: read the project and its findings, and
// request edits. Each edit becomes one undoable step named by `label`. Views never
// change a Project themselves; they describe the change and hand it over here.
#include "project/project.h"
#include "topology/rank_map.h"
#include "util/diagnostic.h"

#include <QString>

#include <functional>
#include <vector>

class ProjectEditor {
public:
    virtual ~ProjectEditor() = default;

    virtual const paraplan::Project& project() const = 0;
    // validate(project()) of the current state (cached by the document).
    virtual const std::vector<paraplan::Diagnostic>& diagnostics() const = 0;
    // The framework's rank map for the current project (build_rank_map, cached).
    virtual const paraplan::topology::RankMap& rankMap() const = 0;

    // Runs `edit` on a copy of the project; if it changed anything, pushes one undo
    // step. Returns false (and fills *error) when the edit was refused.
    virtual bool edit(const QString& label, const std::function<void(paraplan::Project&)>& edit,
                      QString* error = nullptr) = 0;
    // Sets JSON pointers in the project file form (the shape of Fix::changes).
    virtual bool applyChanges(const QString& label, const std::vector<paraplan::FixChange>& changes,
                              QString* error = nullptr) = 0;
};

#pragma once
// What views need from the open document: read the project and its findings, and
// request edits. Each edit becomes one undoable step named by `label`. Views never
// change a Project themselves; they describe the change and hand it over here.
#include "project/project.h"
#include "topology/rank_map.h"
#include "util/diagnostic.h"

#include <QString>

#include <cstdint>
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
    // Which project is open: changes when a project replaces it (New, Open, restore), not on edits.
    virtual std::uint64_t projectId() const { return 0; }
    // Which state of that project: each edit makes a new one; undo and redo go back to the
    // state's own. Results computed from the project (a planner search, a background
    // estimate) carry both and are stale once either differs.
    virtual std::uint64_t revision() const { return 0; }

    // Runs `edit` on a copy of the project; if it changed anything, pushes one undo
    // step. Returns false (and fills *error) when the edit was refused.
    virtual bool edit(const QString& label, const std::function<void(paraplan::Project&)>& edit,
                      QString* error = nullptr) = 0;
    // Sets JSON pointers in the project file form (the shape of Fix::changes).
    virtual bool applyChanges(const QString& label, const std::vector<paraplan::FixChange>& changes,
                              QString* error = nullptr) = 0;
};

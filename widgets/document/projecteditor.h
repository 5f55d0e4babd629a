#pragma once
// What views need from the open document: read the project and its findings, and
// request edits. Each edit becomes one undoable step named by `label`. Views never
// change a Project themselves; they describe the change and hand it over here.
#include "project/project.h"
#include "document/projectanalysis.h"
#include "topology/rank_map.h"
#include "util/diagnostic.h"

#include <QString>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

class ProjectEditor {
public:
    virtual ~ProjectEditor() = default;

    virtual const paraplan::Project& project() const = 0;
    // The rank map, findings, estimate and schedule simulation of the current state. The
    // document works them out off the GUI thread after each edit and says when they are
    // ready (ProjectDocument::analysisReady); asked for earlier, this waits for them. Views
    // refresh when they are ready, so they never wait.
    virtual std::shared_ptr<const ProjectAnalysis> analysis() const = 0;
    // The newest analysis at hand without waiting: null, or one of an earlier state while the
    // current one is being worked out (compare its revision with revision()).
    virtual std::shared_ptr<const ProjectAnalysis> latestAnalysis() const = 0;
    // True when latestAnalysis() is the current state's (nothing to wait for).
    bool analysisCurrent() const {
        const auto a = latestAnalysis();
        return a && a->revision == revision() && a->project_id == projectId();
    }
    // validate(project()) of the current state (analysis()->diagnostics).
    virtual const std::vector<paraplan::Diagnostic>& diagnostics() const { return analysis()->diagnostics; }
    // The framework's rank map for the current project (analysis()->rank_map, built once per state).
    virtual const paraplan::topology::RankMap& rankMap() const { return *analysis()->rank_map; }
    // The same map as a shared, immutable object (to keep it, or hand it to another thread).
    std::shared_ptr<const paraplan::topology::RankMap> sharedRankMap() const { return analysis()->rank_map; }
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

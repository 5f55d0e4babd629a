#include "projectdocument.h"

#include "rules/validate.h"
#include "topology/build_rank_map.h"
#include "util/input_error.h"

#include <QFileInfo>
#include <QUndoCommand>

#include <memory>

using paraplan::Project;

// One edit: the project's state before and after. Whole states keep undo exact for every
// kind of change (layout fields, cluster edits, fixes) without per-field inverse logic;
// the cluster inside them is shared with neighbouring states when the edit left it alone.
class SnapshotCommand : public QUndoCommand {
public:
    SnapshotCommand(ProjectDocument* doc, const QString& label, ProjectDocument::State before,
                    ProjectDocument::State after)
        : QUndoCommand(label), doc_(doc), before_(std::move(before)), after_(std::move(after)) {}
    void undo() override { doc_->setState(before_); }
    void redo() override { doc_->setState(after_); }
    const ProjectDocument::State& before() const { return before_; }
    const ProjectDocument::State& after() const { return after_; }

private:
    ProjectDocument* doc_;
    ProjectDocument::State before_, after_;
};

ProjectDocument::ProjectDocument(QObject* parent) : QObject(parent) {
    setContent(project_);
    connect(&undo_, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
}

ProjectDocument::~ProjectDocument() = default;

QString ProjectDocument::displayName() const {
    return path_.isEmpty() ? tr("Untitled") : QFileInfo(path_).fileName();
}

ProjectDocument::State ProjectDocument::stateOf(Project p, std::uint64_t revision) {
    State s;
    s.revision = revision;
    if (cluster_ && p.cluster == *cluster_) s.cluster = cluster_;
    else s.cluster = std::make_shared<const paraplan::Cluster>(std::move(p.cluster));
    p.cluster = {};
    s.rest = std::move(p);
    return s;
}

void ProjectDocument::setState(const State& s) {
    Project p = s.rest;
    p.cluster = *s.cluster;
    cluster_ = s.cluster;
    revision_ = s.revision;   // back to that state: results computed for it are current again
    setContent(p);
}

void ProjectDocument::setContent(const Project& p) {
    project_ = p;
    if (!cluster_ || !(*cluster_ == project_.cluster)) cluster_ = std::make_shared<const paraplan::Cluster>(project_.cluster);
    diagnostics_ = paraplan::validate(project_);
    rankMap_ = paraplan::topology::build_rank_map(paraplan::topology::from_project(project_), &project_.cluster);
    emit changed();
}

bool ProjectDocument::edit(const QString& label, const std::function<void(Project&)>& fn, QString* error) {
    Project after = project_;
    try {
        fn(after);
        // Round-trip through the file form: the loader's checks apply to every edit,
        // so the document never holds a project that could not be saved and reopened.
        after = paraplan::project_from_json(paraplan::project_to_json(after));
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    if (after == project_) return true;   // nothing to do
    undo_.push(new SnapshotCommand(this, label, stateOf(project_, revision_), stateOf(std::move(after), ++lastRevision_)));
    return true;
}

Project ProjectDocument::withChanges(const Project& p, const std::vector<paraplan::FixChange>& changes) {
    nlohmann::json j = paraplan::project_to_json(p);
    for (const auto& c : changes) {
        nlohmann::json::json_pointer ptr;
        try {
            ptr = nlohmann::json::json_pointer(c.field);
        } catch (const std::exception& e) {
            throw paraplan::InputError(c.field, std::string("not a valid JSON pointer: ") + e.what());
        }
        if (!ptr.empty() && !j.contains(ptr.parent_pointer()))
            throw paraplan::InputError(c.field, "no such place in the project file");
        j[ptr] = c.value;
    }
    return paraplan::project_from_json(j);
}

bool ProjectDocument::applyChanges(const QString& label, const std::vector<paraplan::FixChange>& changes,
                                   QString* error) {
    Project after;
    try {
        after = withChanges(project_, changes);
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    return edit(label, [&after](Project& p) { p = after; }, error);
}

void ProjectDocument::reset(const Project& p, const QString& path) {
    undo_.clear();
    ++projectId_;
    revision_ = ++lastRevision_;
    setContent(p);
    if (path != path_) {
        path_ = path;
        emit pathChanged(path_);
    }
    undo_.setClean();
    emit modifiedChanged(false);
    emit replaced();
}

void ProjectDocument::open(const QString& path) {
    const Project p = paraplan::load_project(path.toStdString());   // throws, document untouched
    reset(p, QFileInfo(path).absoluteFilePath());
}

void ProjectDocument::saveAs(const QString& path) {
    paraplan::save_project(project_, path.toStdString());
    const QString abs = QFileInfo(path).absoluteFilePath();
    if (abs != path_) {
        path_ = abs;
        emit pathChanged(path_);
    }
    undo_.setClean();
    emit saved(path_);
}

void ProjectDocument::markModified() {
    undo_.resetClean();
    emit modifiedChanged(true);
}

int ProjectDocument::historyClusters() const {
    std::vector<const paraplan::Cluster*> seen{cluster_.get()};   // the open project's is not extra
    for (int i = 0; i < undo_.count(); ++i) {
        const auto* cmd = dynamic_cast<const SnapshotCommand*>(undo_.command(i));
        if (!cmd) continue;
        for (const auto* c : {cmd->before().cluster.get(), cmd->after().cluster.get()})
            if (std::find(seen.begin(), seen.end(), c) == seen.end()) seen.push_back(c);
    }
    return static_cast<int>(seen.size()) - 1;
}

#include "projectdocument.h"

#include "rules/validate.h"
#include "topology/build_rank_map.h"
#include "util/input_error.h"

#include <QFileInfo>
#include <QUndoCommand>

#include <memory>

using paraplan::Project;

// One edit: the project before and after. Snapshots keep undo exact for every kind
// of change (layout fields, cluster edits, fixes) without per-field inverse logic. The
// cluster, by far the largest part at scale (16,384 nodes for 131,072 GPUs), is held once
// and shared by every snapshot that has the same one, so a step that leaves the cluster
// alone costs only the model, training, layout and runtime sections.
class SnapshotCommand : public QUndoCommand {
public:
    struct Snapshot {
        Project rest;                                             // with an empty cluster
        std::shared_ptr<const paraplan::Cluster> cluster;
    };
    SnapshotCommand(ProjectDocument* doc, const QString& label, Snapshot before, Snapshot after)
        : QUndoCommand(label), doc_(doc), before_(std::move(before)), after_(std::move(after)) {}
    void undo() override { apply(before_); }
    void redo() override { apply(after_); }

    static Snapshot take(Project p, std::shared_ptr<const paraplan::Cluster> cluster) {
        p.cluster = {};
        return {std::move(p), std::move(cluster)};
    }

private:
    void apply(const Snapshot& s) {
        Project p = s.rest;
        p.cluster = *s.cluster;
        doc_->setContent(p, s.cluster);
    }
    ProjectDocument* doc_;
    Snapshot before_, after_;
};

ProjectDocument::ProjectDocument(QObject* parent) : QObject(parent) {
    setContent(project_);
    connect(&undo_, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
}

ProjectDocument::~ProjectDocument() = default;

QString ProjectDocument::displayName() const {
    return path_.isEmpty() ? tr("Untitled") : QFileInfo(path_).fileName();
}

void ProjectDocument::setContent(const Project& p, std::shared_ptr<const paraplan::Cluster> cluster) {
    project_ = p;
    cluster_ = cluster ? std::move(cluster) : std::make_shared<const paraplan::Cluster>(project_.cluster);
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
    auto afterCluster = after.cluster == project_.cluster ? cluster_
                                                           : std::make_shared<const paraplan::Cluster>(after.cluster);
    undo_.push(new SnapshotCommand(this, label, SnapshotCommand::take(project_, cluster_),
                                   SnapshotCommand::take(std::move(after), std::move(afterCluster))));
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
    setContent(p);
    if (path != path_) {
        path_ = path;
        emit pathChanged(path_);
    }
    undo_.setClean();
    emit modifiedChanged(false);
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

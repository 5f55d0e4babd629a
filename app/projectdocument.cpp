#include "projectdocument.h"

#include "util/input_error.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QTimer>
#include <QUndoCommand>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

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
    // The empty project's analysis at once: views built next read it in their constructors.
    project_ = std::make_shared<const Project>();
    cluster_ = std::make_shared<const paraplan::Cluster>(project_->cluster);
    current_ = stateOf(*project_, revision_);
    analysis_ = analyse(project_, projectId_, revision_);
    delivered_ = true;
    connect(&watcher_, &QFutureWatcherBase::finished, this, &ProjectDocument::analysisFinished);
    connect(&undo_, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
}

ProjectDocument::~ProjectDocument() {
    // A worker still running reads only its own snapshot; tell it to stop early.
    if (runningCancel_) runningCancel_->store(true);
    watcher_.disconnect(this);
}

QString ProjectDocument::displayName() const { return path_.isEmpty() ? tr("Untitled") : QFileInfo(path_).fileName(); }

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
    current_ = s;
    revision_ = s.revision;   // back to that state: results computed for it are current again
    setContent(std::move(p), true);
}

void ProjectDocument::setContent(Project p, bool clusterShared) {
    project_ = std::make_shared<const Project>(std::move(p));
    if (!clusterShared && (!cluster_ || !(*cluster_ == project_->cluster)))
        cluster_ = std::make_shared<const paraplan::Cluster>(project_->cluster);
    if (!clusterShared) current_ = stateOf(*project_, revision_);
    delivered_ = false;
    startAnalysis();
    emit changed();
}

void ProjectDocument::startAnalysis() {
    if (inFlight_) {
        // One at a time: the running one stops at its next step unless it is this state's
        // (an undo back to it), and analysisFinished() starts the current state's.
        runningCancel_->store(runningRevision_ != revision_ || runningProjectId_ != projectId_);
        return;
    }
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    runningCancel_ = cancel;
    runningRevision_ = revision_;
    runningProjectId_ = projectId_;
    inFlight_ = true;
    ++started_;
    // The newest analysis at hand lends what the edit did not change (see analyse()).
    running_ = QtConcurrent::run([p = project_, pid = projectId_, rev = revision_, cancel, prev = analysis_] {
        return analyse(p, pid, rev, cancel.get(), prev);
    });
    watcher_.setFuture(running_);
}

void ProjectDocument::analysisFinished() {
    inFlight_ = false;
    const auto a = running_.result();   // null when it was cancelled
    if (analysisIsCurrent(a)) {
        if (!analysisIsCurrent(analysis_)) analysis_ = a;
    } else {
        ++dropped_;   // an edit came after it started: nobody sees it
    }
    if (!analysisIsCurrent(analysis_)) startAnalysis();
    else if (!delivered_) deliver();
}

void ProjectDocument::deliver() {
    delivered_ = true;
    emit analysisReady(revision_);
}

std::shared_ptr<const ProjectAnalysis> ProjectDocument::analysis() const {
    if (analysisIsCurrent(analysis_)) return analysis_;
    // Asked for before it arrived: wait for the worker when it is on this state, else work it
    // out here. analysisFinished() still announces it (views refresh from the event loop).
    if (inFlight_ && runningRevision_ == revision_ && runningProjectId_ == projectId_ && !runningCancel_->load()) {
        auto f = running_;
        f.waitForFinished();
        if (analysisIsCurrent(f.result())) return analysis_ = f.result();
    }
    analysis_ = analyse(project_, projectId_, revision_, nullptr, analysis_);
    auto* self = const_cast<ProjectDocument*>(this);
    QMetaObject::invokeMethod(
        self,
        [self] {
            if (!self->delivered_ && self->analysisIsCurrent(self->analysis_)) self->deliver();
        },
        Qt::QueuedConnection);
    return analysis_;
}

void ProjectDocument::deliverNow() {
    (void)analysis();
    if (!delivered_) deliver();
}

bool ProjectDocument::waitForAnalysis(int ms) {
    const auto ready = [this] { return delivered_ && analysisIsCurrent(analysis_); };
    QElapsedTimer t;
    t.start();
    while (!ready()) {
        const qint64 left = ms - t.elapsed();
        if (left <= 0) return false;
        QEventLoop loop;
        connect(this, &ProjectDocument::analysisReady, &loop, &QEventLoop::quit);
        QTimer::singleShot(static_cast<int>(std::min<qint64>(left, 50)), &loop, &QEventLoop::quit);
        loop.exec();
    }
    return true;
}

namespace {
// The unknown keys of a project outside its cluster (top level, model, training, layout). The
// loader only carries them (it checks nothing in them), so they sit out an edit's trip through
// the file form and stay shared with the state before: a file with 100 MB of keys Paraplan does
// not know costs an edit a few pointers, not two copies of them.
struct RestExtras {
    paraplan::CowJson top, model, training, layout;

    static RestExtras take(Project& p) {
        return {std::exchange(p.extra, {}), std::exchange(p.model.extra, {}), std::exchange(p.training.extra, {}),
                std::exchange(p.layout.extra, {})};
    }
    // Puts them back; keys the trip itself wrote (a change whose pointer names a key the
    // loader does not know) are added to them.
    void putBack(Project& p) const {
        const auto back = [](paraplan::CowJson& now, const paraplan::CowJson& kept) {
            bool covered = true;   // the trip wrote back only keys `kept` has, as they are
            for (auto it = now->begin(); covered && it != now->end(); ++it) {
                const nlohmann::json* k = kept.find(it.key());
                covered = k && *k == it.value();
            }
            if (covered) {
                now = kept;
            } else if (!kept.empty()) {
                nlohmann::json merged = kept.get();
                merged.update(now.get());
                now = std::move(merged);
            }
        };
        back(p.extra, top);
        back(p.model.extra, model);
        back(p.training.extra, training);
        back(p.layout.extra, layout);
    }
};

// A change whose pointer leads into a key the project keeps without knowing it (the top
// level's, the model's, training's or layout's unknown keys, e.g. /estimate/profile) is made
// there, since those keys sit out the trip; false for any other change.
bool changeUnknownKey(Project& p, const paraplan::FixChange& c) {
    nlohmann::json::json_pointer ptr;
    try {
        ptr = nlohmann::json::json_pointer(c.field);
    } catch (const std::exception&) {
        return false;   // withChanges() says what is wrong with it
    }
    const std::string_view f = c.field;
    paraplan::CowJson* extra = &p.extra;
    for (auto [section, e] : {std::pair{std::string_view("/model/"), &p.model.extra},
                              std::pair{std::string_view("/training/"), &p.training.extra},
                              std::pair{std::string_view("/layout/"), &p.layout.extra}})
        if (f.starts_with(section)) {
            extra = e;
            ptr = nlohmann::json::json_pointer(std::string(f.substr(section.size() - 1)));
            break;
        }
    if (ptr.empty()) return false;
    nlohmann::json::json_pointer first = ptr;
    while (!first.parent_pointer().empty()) first = first.parent_pointer();
    if (!extra->get().contains(first) || !extra->get().contains(ptr.parent_pointer())) return false;
    extra->edit()[ptr] = c.value;
    return true;
}

// `p` with `changes`, through the file form so that the loader checks it; its unknown keys
// outside the cluster sit out the trip (RestExtras).
Project checkedTrip(Project p, const std::vector<paraplan::FixChange>& changes) {
    std::vector<paraplan::FixChange> rest;
    for (const auto& c : changes)
        if (!changeUnknownKey(p, c)) rest.push_back(c);
    const RestExtras extras = RestExtras::take(p);
    p = rest.empty() ? paraplan::project_from_json(paraplan::project_to_json(p))
                     : ProjectDocument::withChanges(p, rest);
    extras.putBack(p);
    return p;
}
}   // namespace

Project ProjectDocument::checkedRest(Project p, const std::vector<paraplan::FixChange>& changes) const {
    p.cluster = {};
    p.cluster.nodes = {cluster_->nodes.front()};   // the loader wants one
    p = checkedTrip(std::move(p), changes);
    p.cluster = {};
    return p;
}

bool ProjectDocument::edit(const QString& label, const std::function<void(Project&)>& fn, QString* error) {
    Project after = *project_;   // shares the cluster's nodes until `fn` changes them
    State next;
    try {
        fn(after);
        // Round-trip through the file form: the loader's checks apply to every edit,
        // so the document never holds a project that could not be saved and reopened.
        // A cluster the edit left alone was checked when it came in (and the loader reads
        // it apart from the rest): it sits out the trip and stays shared, since at 131,072
        // GPUs its 16,384 nodes would be most of the edit's work.
        if (!after.cluster.nodes.empty() && after.cluster == *cluster_) {
            next.cluster = cluster_;
            next.rest = checkedRest(std::move(after), {});
        } else {
            next = stateOf(checkedTrip(std::move(after), {}), 0);
        }
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    return push(label, std::move(next));
}

bool ProjectDocument::push(const QString& label, State next) {
    if (next.cluster == cluster_ && next.rest == current_.rest) return true;   // nothing to do
    next.revision = ++lastRevision_;
    undo_.push(new SnapshotCommand(this, label, current_, std::move(next)));
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

namespace {
// Whether a JSON pointer of `changes` reaches into the cluster (or replaces the whole file).
bool touchesCluster(const std::vector<paraplan::FixChange>& changes) {
    const std::string_view cluster = "/cluster";
    for (const auto& c : changes) {
        const std::string_view f = c.field;
        if (f.empty() || (f.starts_with(cluster) && (f.size() == cluster.size() || f[cluster.size()] == '/')))
            return true;
    }
    return false;
}
}   // namespace

bool ProjectDocument::applyChanges(const QString& label, const std::vector<paraplan::FixChange>& changes,
                                   QString* error) {
    State next;
    try {
        if (!touchesCluster(changes) && !cluster_->nodes.empty()) {
            // The fields of a layout or training edit: only the rest of the project makes the
            // trip through the file form (see edit()); the cluster stays shared.
            next.cluster = cluster_;
            next.rest = checkedRest(current_.rest, changes);
        } else {
            next = stateOf(checkedTrip(*project_, changes), 0);
        }
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    return push(label, std::move(next));
}

void ProjectDocument::reset(const Project& p, const QString& path) {
    undo_.clear();
    ++projectId_;
    revision_ = ++lastRevision_;
    // Like an edit: the fields show the project at once, its analysis is worked out on a worker
    // and announced by analysisReady() (the views refresh then); a result of the project shown
    // before, or of an edit made meanwhile, is dropped (its project id or revision differs).
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
    paraplan::save_project(*project_, path.toStdString());
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

#pragma once
// The Paraplan main window: the cluster canvas in the middle, dockable views
// around it, all showing one ProjectDocument.
#include <QMainWindow>

#include <functional>
#include <memory>
#include <QHash>
#include <QSet>
#include <vector>

namespace paraplan {
struct Project;
}

class AnswerBar;
class ClusterCanvas;
class DiagnosticsPanel;
class ExplainPanel;
class ExportDialog;
class NewProjectDialog;
class RankGrid;
class TimelineView;
class LayoutPanel;
class MemoryView;
class PlannerPanel;
class ShardformerChecklist;
class CompareView;
class LessonPanel;
class StepPlayer;
class LinkTrafficView;
namespace paraplan::widgets {
class RunPanel;
class GpuMonitor;
}   // namespace paraplan::widgets
class ProjectDocument;
class QLabel;
class QMenu;
class QMessageBox;
class QUndoView;
class Recovery;

class PlaybackExport;
class ProjectLoad;
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // `recoveryDir` (tests): where autosaves go; empty = the app data location.
    explicit MainWindow(QWidget* parent = nullptr, const QString& recoveryDir = QString());
    ~MainWindow() override;

    // Shows `project` (a fresh history; `path` may be empty) with every view refreshed from its
    // analysis when this returns (worked out here): for scripts, pictures and tests.
    void setProject(const paraplan::Project& project, const QString& path);
    // Opens `project` as the user's Open does: returns at once (the Layout fields show it), the
    // analysis runs on a worker and the views follow when it arrives. A bundled example's path
    // opens it as an untitled copy (as File > Open does), so Save never overwrites it.
    void openProject(const paraplan::Project& project, const QString& path);
    const paraplan::Project& project() const;

    ProjectDocument* document() const { return doc_; }
    Recovery* recovery() const { return recovery_; }
    LayoutPanel* layoutPanel() const { return layout_; }
    DiagnosticsPanel* diagnosticsPanel() const { return diagnostics_; }
    ClusterCanvas* canvas() const { return canvas_; }
    RankGrid* rankGrid() const { return grid_; }
    TimelineView* timeline() const { return timeline_; }
    ExplainPanel* explainPanel() const { return explain_; }
    MemoryView* memoryView() const { return memory_; }
    PlannerPanel* plannerPanel() const { return planner_; }
    paraplan::widgets::RunPanel* runPanel() const { return run_; }
    paraplan::widgets::GpuMonitor* gpuMonitor() const { return gpus_; }
    // Teaching and deciding views (mainwindow_teach.cpp).
    ShardformerChecklist* shardformerChecklist() const { return shardformer_; }
    CompareView* compareView() const { return compare_; }
    LessonPanel* lessonPanel() const { return lessons_; }
    // Adds the planner rows selected in its table (or, with none selected, its first rows, at most
    // `fallback`) to the Compare view, each as the open project with that row applied; returns how many.
    int compareSelectedPlannerRows(int fallback = 0);
    StepPlayer* stepPlayer() const { return player_; }
    AnswerBar* answerBar() const { return answer_; }
    LinkTrafficView* linkTraffic() const { return links_; }
    // After an edit the views show the state before it until the edit's analysis is ready; past
    // this delay (250 ms; 0: at once) they say so: the answer bar greys, the status bar shows
    // "Updating…" and the link traffic says so. showsUpdating(): the mark is on now.
    void setUpdatingMarkDelay(int ms) { updatingDelayMs_ = ms; }
    bool showsUpdating() const { return updating_; }

    // Plays the step and saves `frames` pictures of the window (canvas, rank grid, timeline
    // with the playhead) as dir/frame_0000.png ...; with Debian's ffmpeg on PATH also
    // dir/playback.mp4 (skipped without it). Returns the files written; false + *error on failure.
    // Runs the export (PlaybackExport) and waits for it, the event loop running meanwhile.
    bool exportPlayback(const QString& dir, int frames, QStringList* files = nullptr, QString* error = nullptr);
    // The playback's Export button: asks for a folder, then exports 60 frames with a progress
    // dialog that can cancel it; returns the export (null when no folder was chosen), which the
    // window deletes when it ends. `dir` non-empty skips the question (tests).
    PlaybackExport* startPlaybackExport(const QString& dir = QString());

    // Opens a project file: read and parsed off the GUI thread (ProjectLoad: a progress dialog
    // with Cancel after 300 ms), then shown. On failure shows the error (non-blocking message box,
    // objectName "openError") and keeps the current project. Returns false when another file is
    // still being opened; fileOpened() says how it ended.
    bool openFile(const QString& path);
    // Waits (the event loop running) until no file is being opened; true if the last one opened.
    bool waitForOpen(int timeoutMs = 60000);
    ProjectLoad* projectLoad() const { return load_; }
    bool saveFile(const QString& path);
    QString lastError() const { return lastError_; }

    // Imports a framework config (DeepSpeed, Megatron, torchtitan, ColossalAI; the format guessed
    // when `format` is empty) over the open project as one undoable step. On failure shows the
    // error and keeps the project. Items the config holds that Paraplan cannot read are listed.
    bool importConfigFile(const QString& path, const QString& format = QString());
    QStringList lastImportMessages() const { return lastImportMessages_; }

    // Saves a view as a picture (.png, .svg, .pdf by extension): canvas (the whole cluster),
    // grid, timeline, memory, planner (its chart), explain. False with *error on failure.
    bool exportPicture(const QString& view, const QString& path, QString* error = nullptr);

    // Asks whether to restore a recovery file left by a session that ended without saving.
    void offerRecovery();
    // File > Export…: opens (non-modal to the event loop) an export dialog for the current project.
    ExportDialog* exportDialog();
    // The new-project form (File > New… asks to save unsaved changes first), opened non-modal
    // to the event loop; accepting it replaces the open project.
    NewProjectDialog* newProjectDialog();
    // Opens a built-in example as an untitled copy (Save asks where; the bundled file is never written).
    bool openExample(const QString& name);
    // Edit > Rename Project…: one undoable step.
    bool renameProject(const QString& name);
    // Help: the user guide ("user-guide") or concepts guide ("concepts") in a viewer window;
    // the path of the guide's Markdown file (installed docs or the source tree), empty if none.
    static QString guidePath(const QString& name);
    // `section`: the anchor of a heading to open the guide at (guide_section.h), e.g. "zero".
    QWidget* showGuide(const QString& name, const QString& section = QString());
    // Help > Keyboard Shortcuts: a window listing every action that has keys.
    QWidget* showShortcuts();
    // View > Colours: "system", "light" or "dark" (kept in the settings).
    void setColourScheme(const QString& scheme);
    QString colourScheme() const { return colourScheme_; }
    // Brings a view to the front: canvas, grid, timeline, memory, diagnostics, planner, layout.
    // The planner, never run yet, starts its search (it ends later: PlannerPanel::finished).
    bool raiseView(const QString& name);
    QStringList viewNames() const;
    // Brings every view that waited while hidden up to date (pictures, scripts).
    void refreshStaleViews();
    // The views that are behind the project (hidden when it changed).
    QSet<QString> staleViews() const { return staleViews_; }

protected:
    void closeEvent(QCloseEvent* e) override;
    void showEvent(QShowEvent* e) override;
    bool eventFilter(QObject* watched, QEvent* e) override;
    void changeEvent(QEvent* e) override;

private:
    void createActions();
    void setupRunViews();   // the Run panel, GPU monitor and live colouring (mainwindow_runs.cpp)
    QDockWidget* addDock(const QString& id, const QString& title, QWidget* w, Qt::DockWidgetArea area);
    // On an edit: what must follow at once (the Layout fields), without waiting for the analysis.
    void showEdit();
    // When the analysis of the current state is ready: every view (hidden ones when shown).
    void refreshViews();
    // The teaching and deciding views (ShardFormer checklist, ...): docks and View menu entries.
    void setupTeachViews();
    void refreshTeachViews();
    // A lesson step's view never covers the lesson: the lessons dock leaves a tab group that
    // holds a view the lesson brings forward (mainwindow_teach.cpp).
    void keepLessonInView(const QString& view);
    // A lesson step's "colour_by": the canvas tiles and the rank grid colour by it.
    void colourForLesson(const QString& axis);
    // Refreshes the docked view `id` (grid, timeline, explain, memory), or marks
    // it stale when it cannot be seen; with onlyIfStale, only a view marked stale.
    void refreshView(const QString& id, bool onlyIfStale);
    // The edit's analysis (or the link traffic's playback) is not ready after the delay: marks
    // what shows the state before the edit (markUpdating(true)); cleared when it is ready.
    void noteEditPending();
    void markUpdating(bool on);
    void updateTitle();
    void updateRecentMenu();
    void showError(const QString& title, const QString& text);
    bool maybeSave();
    void newProject();
    void openDialog();
    bool save();
    bool saveAsDialog();
    void importHfDialog();
    void restoreWindowState();
    // The docks' default sizes for the window's size (when no saved state gives them).
    void defaultProportions();
    // Play a step beside what it plays: takes its dock out of the bottom tabs (where the Pipeline
    // timeline is its neighbour tab) to a short row under them, and brings the timeline forward,
    // so the controls and the timeline with its playhead show together. A dock the user moved
    // elsewhere (floating, another area, other tabs) stays where it is.
    void showPlayerWithTimeline();
    void importConfigDialog();
    // Closing while a job runs: asks (window-modal) to stop it on every node and quit, or to
    // cancel. True: no job runs, go on; false: the answer decides later.
    bool confirmCloseWithRunningJob();
    // "Stop the Job and Quit": stops the job and closes once it has ended (or after a minute).
    void stopJobAndQuit();
    // The pipeline stages (pp coordinates) of these ranks, sorted, once each.
    std::vector<int> stagesOf(const std::vector<int>& ranks) const;

    ProjectDocument* doc_;
    Recovery* recovery_;
    ClusterCanvas* canvas_ = nullptr;
    LayoutPanel* layout_ = nullptr;
    DiagnosticsPanel* diagnostics_ = nullptr;
    QUndoView* history_ = nullptr;
    RankGrid* grid_ = nullptr;
    TimelineView* timeline_ = nullptr;
    ExplainPanel* explain_ = nullptr;
    MemoryView* memory_ = nullptr;
    PlannerPanel* planner_ = nullptr;
    paraplan::widgets::RunPanel* run_ = nullptr;
    paraplan::widgets::GpuMonitor* gpus_ = nullptr;
    ShardformerChecklist* shardformer_ = nullptr;
    CompareView* compare_ = nullptr;
    LessonPanel* lessons_ = nullptr;
    StepPlayer* player_ = nullptr;
    AnswerBar* answer_ = nullptr;
    LinkTrafficView* links_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QMenu* viewMenu_ = nullptr;
    QLabel* statusSummary_ = nullptr;
    QHash<QString, QDockWidget*> docks_;
    std::vector<std::pair<QString, std::function<void()>>> viewRefresh_;   // docked views, refresh order
    QSet<QString> staleViews_;
    QSet<QString> hiddenViews_;   // docked views whose dock or tab is not shown
    QString lastError_;
    ProjectLoad* load_ = nullptr;   // the file being opened (a child: destroyed with the window)
    bool lastOpenOk_ = false;
    bool syncingSelection_ = false;
    bool recolourQueued_ = false;
    QStringList lastImportMessages_;
    QList<QAction*> windowKeys_;   // actions whose keys work even from a text field (undo, redo, export, ...)
    QString colourScheme_ = QStringLiteral("system");
    QList<QAction*> schemeActions_;
    bool lessonScratch_ = false;   // the open project is a lesson's own, untitled (no save prompt to replace it)
    bool shownOnce_ = false;
    bool restoredState_ = false;
    QTimer* updatingTimer_ = nullptr;
    int updatingDelayMs_ = 250;
    bool updating_ = false;
    QLabel* updatingMark_ = nullptr;   // the status bar's "Updating…"
    bool quitWhenJobEnds_ = false;     // "Stop the Job and Quit" answered: close when the job ends
    bool forceQuit_ = false;           // the job did not end in time: close anyway
};

// Play a step on the real main window: play, step and scrub move the playhead on the
// timeline; at the playhead the cluster canvas and the rank grid show, rank by rank,
// what core's active_at() says that rank's pipeline stage does; the status names the
// running collectives; the link-traffic table lists core's links; the playback exports
// as a PNG sequence and, with ffmpeg, an MP4 that ffprobe reads back.
#include <qcustomplot.h>   // first: it uses the signals/foreach keywords

#include "canvas/clustercanvas.h"
#include "guitest.h"
#include "../scale_project.h"
#include "views/linktrafficview.h"
#include "playback_export.h"
#include "live_overlay.h"
#include "projectdocument.h"
#include "views/rankgrid.h"
#include "views/stepplayer.h"
#include "views/timelineview.h"
#include "ssh/ssh_command.h"
#include "runtime/telemetry.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProgressDialog>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QLabel>
#include <QSlider>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include <cmath>

using namespace paraplan;
using namespace paraplan::estimate;

class TestPlayback : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { isolateSettings(dir_); }
    void playStepScrub();
    void viewsFollowActiveSet();
    void linkTrafficTable();
    void linkTrafficFormatsRowsInView();
    void exportPngSequence();
    void exportMp4();
    void exportCancels();
    void playbackWinsOverLiveColouring();
    void commandLineFrames();
    void buildWaitsForAnalysisAndFrame();
    void editBeforeFrameSkipsStaleBuild();
    void editDuringBuildDropsIt();
    void editCancelsRunningBuild();

private:
    QTemporaryDir dir_;
};

namespace {
// What a rank's tile says for its stage, from core's active set.
QString expectedText(const StepPlayback& pb, const ActiveSet& a, int stage) {
    QStringList parts;
    for (const auto& s : a.stages) {
        if (s.stage != stage) continue;
        QString t = QString::fromLatin1(to_string(s.activity));
        if (s.microbatch >= 0) {
            t += QString::number(s.microbatch);
            if (pb.timeline.chunks > 1) t += QStringLiteral(".%1").arg(s.chunk);
        }
        parts << t;
    }
    return parts.join(QStringLiteral("+"));
}
}   // namespace

void TestPlayback::playStepScrub() {
    auto w = exampleWindow(dir_, "llama3.1-8b-pp4-1node");
    StepPlayer* player = w->stepPlayer();
    QVERIFY(player);
    QVERIFY(player->playback());
    const StepPlayback& pb = *player->playback();
    QVERIFY(!w->timeline()->showsPlayback());
    QVERIFY(!w->canvas()->shownHeatmap());

    // The controls carry the style's media icons and plain names (the glyphs they had are missing
    // from common fonts), and Play turns into Pause while playing.
    for (const char* name : {"playPrev", "playPlay", "playNext", "playStop"}) {
        const auto* b = player->findChild<QToolButton*>(QLatin1String(name));
        QVERIFY2(b && !b->icon().isNull() && !b->accessibleName().isEmpty(), name);
    }
    auto* playButton = player->findChild<QToolButton*>(QStringLiteral("playPlay"));
    QCOMPARE(playButton->text(), QStringLiteral("Play"));
    QTest::mouseClick(playButton, Qt::LeftButton);
    QCOMPARE(playButton->text(), QStringLiteral("Pause"));
    QVERIFY(player->playing());
    QTest::mouseClick(playButton, Qt::LeftButton);
    QCOMPARE(playButton->text(), QStringLiteral("Play"));
    QVERIFY(!player->playing());
    player->stop();

    // Step: to the next event, the timeline's playhead with it.
    QTest::mouseClick(player->findChild<QToolButton*>(QStringLiteral("playNext")), Qt::LeftButton);
    QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
    QCOMPARE(player->time(), pb.next_event(0));
    QVERIFY(w->timeline()->showsPlayback());
    QCOMPARE(w->timeline()->playheadSeconds(), player->time());
    QVERIFY(w->timeline()->playhead()->visible());
    const double t1 = player->time();
    player->stepForward();
    QVERIFY(player->time() > t1);
    player->stepBack();
    QCOMPARE(player->time(), t1);

    // Scrub: the slider's middle is the middle of the step.
    player->slider()->setValue(player->slider()->maximum() / 2);
    QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
    QVERIFY(std::abs(player->time() - pb.step_s / 2) <= pb.step_s * 1e-3);
    QCOMPARE(w->timeline()->playheadSeconds(), player->time());

    // Play: the playhead moves by itself; advance() at 4x moves 4x as far as at 1x.
    player->setTime(0);
    QTest::mouseClick(player->playButton(), Qt::LeftButton);
    QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
    QVERIFY(player->playing());
    QTRY_VERIFY_WITH_TIMEOUT(player->time() > 0, 3000);
    player->pause();
    QVERIFY(!player->playing());
    player->setTime(0);
    player->setSpeed(1);
    player->advance(0.5);
    const double at1 = player->time();
    QVERIFY(std::abs(at1 - 0.05 * pb.step_s) <= 1e-9 * pb.step_s);
    player->setTime(0);
    player->setSpeed(4);
    player->advance(0.5);
    QVERIFY(std::abs(player->time() - 4 * at1) <= 1e-9 * pb.step_s);

    // Stop: the views go back to the layout.
    player->stop();
    QVERIFY(!w->timeline()->showsPlayback());
    QVERIFY(!w->canvas()->shownHeatmap());
    QVERIFY(!w->rankGrid()->shownHeatmap());
}

void TestPlayback::viewsFollowActiveSet() {
    auto w = exampleWindow(dir_, "llama3.1-8b-pp4-1node");
    StepPlayer* player = w->stepPlayer();
    const StepPlayback& pb = *player->playback();
    const auto placement = w->project().cluster.placement();
    int idleSeen = 0, busySeen = 0, commSeen = 0;
    for (int i = 0; i < 40; ++i) {
        const double t = (i + 0.5) / 40.0 * pb.step_s;
        player->setTime(t);
        const ActiveSet a = active_at(pb, t);
        for (int r = 0; r < int(pb.stage_of_rank.size()); ++r) {
            const QString want = expectedText(pb, a, pb.stage_of_rank[std::size_t(r)]);
            const HeatCell* g = w->rankGrid()->cellHeat(r);
            QVERIFY(g);
            QCOMPARE(g->text, want);
            const auto c = w->canvas()->tileHeat(placement[std::size_t(r)].node, placement[std::size_t(r)].local_rank);
            QVERIFY(c);
            QCOMPARE(c->text, want);
            if (want == QLatin1String("idle")) ++idleSeen;
            else ++busySeen;
        }
        // The status names every running collective.
        for (int k : a.comms) {
            QVERIFY(player->statusLabel()->text().contains(QString::fromStdString(pb.comms[std::size_t(k)].label)));
            ++commSeen;
        }
    }
    QVERIFY(idleSeen > 0);   // the bubble
    QVERIFY(busySeen > 0);
    // An instant inside a TP all-reduce block: the status shows it with its bytes.
    for (const auto& c : pb.comms)
        if (c.group == kTp && c.end > c.start) {
            player->setTime(0.5 * (c.start + c.end));
            QVERIFY(player->statusLabel()->text().contains(QStringLiteral("TP all-reduce stage %1").arg(c.stage)));
            QVERIFY(player->statusLabel()->text().contains(QStringLiteral("MiB")));
            ++commSeen;
            break;
        }
    QVERIFY(commSeen > 0);
}

void TestPlayback::linkTrafficTable() {
    auto w = exampleWindow(dir_, "llama3.1-70b-4nodes");
    const StepPlayback& pb = *w->stepPlayer()->playback();
    QTableView* t = w->linkTraffic()->table();
    const QAbstractItemModel* m = t->model();
    QCOMPARE(m->rowCount(), int(pb.links.size()));
    QVERIFY(m->rowCount() > 4);   // 4 nodes inside, pp hops between
    int crossing = 0;
    for (int r = 0; r < m->rowCount(); ++r) {
        QCOMPARE(m->index(r, 2).data(Qt::DisplayRole).toDouble(),
                 pb.links[std::size_t(r)].bytes / (1024.0 * 1024 * 1024));
        const bool cross = m->index(r, 0).data(Qt::UserRole).toBool();
        QCOMPARE(cross, pb.links[std::size_t(r)].cross_node);
        const QString name = m->index(r, 0).data().toString();
        QVERIFY2(name.contains(QString::number(pb.links[std::size_t(r)].node_a)), qPrintable(name));
        if (cross) {
            ++crossing;
            QVERIFY(m->index(r, 0).data(Qt::FontRole).value<QFont>().bold());
            QVERIFY(name.contains(QString::number(pb.links[std::size_t(r)].node_b)));
        }
        if (r > 0)
            QVERIFY(m->index(r - 1, 2).data(Qt::DisplayRole).toDouble() >=
                    m->index(r, 2).data(Qt::DisplayRole).toDouble());
    }
    QVERIFY(crossing > 0);
    QVERIFY(w->linkTraffic()->summaryText().contains(QStringLiteral("cross nodes")));
}

void TestPlayback::linkTrafficFormatsRowsInView() {
    // A cluster of 16,384 nodes has tens of thousands of links: showing them formats the rows
    // on screen (and a bounded sample to size the columns), not every link. Filled one row
    // per link, the table took about 0.3 s of the GUI thread per edit at that size.
    StepPlayback pb;
    const int n = 40000;
    for (int i = 0; i < n; ++i) {
        LinkTraffic k;
        k.node_a = i / 2;
        k.node_b = i % 2 ? i / 2 + 1 : i / 2;
        k.cross_node = i % 2;
        k.bytes = double(n - i) * 1e6;   // largest first, as the playback sorts them
        k.by_group[std::size_t(k.cross_node ? kPp : kTp)] = k.bytes;
        pb.links.push_back(k);
    }
    LinkTrafficView v;
    v.resize(700, 400);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    const long long before = v.rowsFormatted();
    v.setPlayback(&pb);
    QTest::qWait(20);
    v.repaint();
    const long long formatted = v.rowsFormatted() - before;
    QVERIFY2(formatted > 0 && formatted < 2000, qPrintable(QString::number(formatted)));
    QCOMPARE(v.table()->model()->rowCount(), n);
    QVERIFY(v.summaryText().startsWith(QStringLiteral("40000 links")));
    // The last row is right when scrolled to.
    v.table()->scrollToBottom();
    QCOMPARE(v.table()->model()->index(n - 1, 0).data().toString(), QStringLiteral("⚠ node 19999 ↔ node 20000"));
    QCOMPARE(v.table()->model()->index(n - 1, 3).data().toString(), QStringLiteral("PP"));
}

void TestPlayback::exportPngSequence() {
    auto w = exampleWindow(dir_, "llama3.1-8b-pp4-1node");
    w->setAttribute(Qt::WA_DontShowOnScreen);
    w->show();
    w->resize(1200, 800);
    QTemporaryDir out;
    QStringList files;
    QString err;
    QVERIFY2(w->exportPlayback(out.filePath(QStringLiteral("frames")), 5, &files, &err), qPrintable(err));
    QStringList pngs = files.filter(QStringLiteral(".png"));
    QCOMPARE(pngs.size(), 5);
    QVERIFY(pngs[0].endsWith(QStringLiteral("frame_0000.png")));
    QVERIFY(pngs[4].endsWith(QStringLiteral("frame_0004.png")));
    QImage first(pngs[0]), mid(pngs[2]);
    QVERIFY(!first.isNull());
    QCOMPARE(first.size(), mid.size());
    QVERIFY(first != mid);   // the playhead and the tiles moved
    // The last frame is the end of the step.
    QCOMPARE(w->stepPlayer()->time(), w->stepPlayer()->playback()->step_s);
}

void TestPlayback::exportMp4() {
    // With Debian's ffmpeg installed the frames are also encoded as DIR/playback.mp4 (H.264,
    // yuv420p, 10 frames per second as the user guide says); ffprobe reads it back.
    const QString ffprobe = QStandardPaths::findExecutable(QStringLiteral("ffprobe"));
    if (QStandardPaths::findExecutable(QStringLiteral("ffmpeg")).isEmpty() || ffprobe.isEmpty())
        QSKIP("ffmpeg/ffprobe not on PATH (apt-get install ffmpeg): the MP4 export is not tested");
    auto w = exampleWindow(dir_, "mixtral-8x7b-2nodes-ep");
    w->setAttribute(Qt::WA_DontShowOnScreen);
    w->show();
    w->resize(1300, 850);
    QTemporaryDir out;
    const QString dir = out.filePath(QStringLiteral("mp4"));
    QStringList files;
    QString err;
    const int frames = 7;
    QVERIFY2(w->exportPlayback(dir, frames, &files, &err), qPrintable(err));
    QCOMPARE(files.filter(QStringLiteral(".png")).size(), frames);
    QCOMPARE(files.filter(QStringLiteral(".mp4")), QStringList{QDir(dir).filePath(QStringLiteral("playback.mp4"))});
    const QImage first(files.first());
    QProcess probe;
    probe.start(ffprobe,
                {QStringLiteral("-v"), QStringLiteral("error"), QStringLiteral("-count_frames"),
                 QStringLiteral("-select_streams"), QStringLiteral("v:0"), QStringLiteral("-show_entries"),
                 QStringLiteral("stream=codec_name,pix_fmt,width,height,nb_read_frames,r_frame_rate:format=duration"),
                 QStringLiteral("-of"), QStringLiteral("json"), files.last()});
    QVERIFY(probe.waitForFinished(60000));
    QCOMPARE(probe.exitCode(), 0);
    const QJsonObject info = QJsonDocument::fromJson(probe.readAllStandardOutput()).object();
    const QJsonObject stream = info.value(QStringLiteral("streams")).toArray().at(0).toObject();
    QCOMPARE(stream.value(QStringLiteral("codec_name")).toString(), QStringLiteral("h264"));
    QCOMPARE(stream.value(QStringLiteral("pix_fmt")).toString(), QStringLiteral("yuv420p"));
    QCOMPARE(stream.value(QStringLiteral("nb_read_frames")).toString().toInt(), frames);
    QCOMPARE(stream.value(QStringLiteral("r_frame_rate")).toString(), QStringLiteral("10/1"));
    // The frames' size, rounded down to even (yuv420p needs it).
    QCOMPARE(stream.value(QStringLiteral("width")).toInt(), first.width() / 2 * 2);
    QCOMPARE(stream.value(QStringLiteral("height")).toInt(), first.height() / 2 * 2);
    const double duration =
        info.value(QStringLiteral("format")).toObject().value(QStringLiteral("duration")).toString().toDouble();
    QVERIFY2(std::abs(duration - frames / 10.0) < 0.05, qPrintable(QString::number(duration)));
}

void TestPlayback::exportCancels() {
    // Cancel in the progress dialog stops the export at the next frame: no MP4, fewer frames,
    // no error box, and the status bar says so.
    auto w = exampleWindow(dir_, "llama3.1-8b-pp4-1node");
    w->setAttribute(Qt::WA_DontShowOnScreen);
    w->show();
    w->resize(1200, 800);
    QVERIFY(w->document()->waitForAnalysis());
    QTRY_VERIFY_WITH_TIMEOUT(w->stepPlayer()->playback().has_value(), 60000);
    QTemporaryDir out;
    const QString dir = out.filePath(QStringLiteral("cancelled"));
    PlaybackExport* e = w->startPlaybackExport(dir);
    QVERIFY(e);
    QSignalSpy done(e, &PlaybackExport::finished);
    auto* dialog = w->findChild<QProgressDialog*>(QStringLiteral("playbackExportProgress"));
    QVERIFY(dialog);
    // The click lands between two frames, as a user's does (the frames are turns of the event loop).
    connect(e, &PlaybackExport::progress, dialog, [dialog](int framesDone) {
        if (framesDone == 4)
            QTimer::singleShot(0, dialog,
                               [dialog] { QTest::mouseClick(dialog->findChild<QPushButton*>(), Qt::LeftButton); });
    });
    QVERIFY(done.wait(60000));
    QCOMPARE(done.first().at(0).toBool(), false);
    const int written = int(QDir(dir).entryList({QStringLiteral("frame_*.png")}, QDir::Files).size());
    QVERIFY2(written >= 4 && written < 8, qPrintable(QString::number(written)));
    QVERIFY(!QFileInfo::exists(QDir(dir).filePath(QStringLiteral("playback.mp4"))));
    QVERIFY(w->statusBar()->currentMessage().contains(QStringLiteral("cancelled")));
}

void TestPlayback::playbackWinsOverLiveColouring() {
    // A job's live colouring and the playback share the canvas and rank grid: while the
    // playback is shown it colours them ("Colour by" says "Step playback"), the live feeder's
    // ticks leave them alone and the status bar says the live colouring is paused; stopping
    // the playback brings the live colouring back, and a job ending under the playback does
    // not clear it.
    auto w = exampleWindow(dir_, "llama3.1-8b-pp4-1node");
    w->setAttribute(Qt::WA_DontShowOnScreen);
    w->show();
    auto* feeder = w->findChild<LiveOverlayFeeder*>(QStringLiteral("liveOverlayFeeder"));
    QVERIFY(feeder);
    auto* canvasCombo = w->canvas()->findChild<QComboBox*>(QStringLiteral("colourBy"));
    auto* gridCombo = w->rankGrid()->findChild<QComboBox*>(QStringLiteral("gridColourBy"));
    QVERIFY(canvasCombo && gridCombo);
    // A real monitor of the project's cluster, never started: every rank "no sample".
    runtime::TelemetryMonitor monitor(w->project().cluster, runtime::SshOptions{}, 1000);
    feeder->start(&monitor, 3'600'000);   // ticked by hand below
    QVERIFY(feeder->running());
    QVERIFY(!w->canvas()->liveOverlay().empty());
    QVERIFY(!w->canvas()->liveOverlay().playback);
    QCOMPARE(canvasCombo->currentText(), QStringLiteral("GPU utilization (live)"));
    QCOMPARE(gridCombo->currentText(), QStringLiteral("GPU utilization (live)"));
    QVERIFY(!w->canvas()->tileHeat(0, 0)->has);

    StepPlayer* player = w->stepPlayer();
    QVERIFY(player->playback());
    const double t = player->playback()->step_s * 0.25;
    player->setTime(t);
    QVERIFY(feeder->paused());
    QVERIFY(w->canvas()->liveOverlay().playback);
    QCOMPARE(w->canvas()->colourAxis(), heat::kUtilization);
    QCOMPARE(canvasCombo->currentText(), QStringLiteral("Step playback"));
    QCOMPARE(gridCombo->currentText(), QStringLiteral("Step playback"));
    QCOMPARE(canvasCombo->findText(QStringLiteral("GPU utilization (live)")), -1);
    QVERIFY2(w->statusBar()->currentMessage().contains(QStringLiteral("live GPU colouring paused")),
             qPrintable(w->statusBar()->currentMessage()));
    const Heatmap expected = StepPlayer::heatmapAt(*player->playback(), active_at(*player->playback(), t));
    QCOMPARE(w->canvas()->tileHeat(0, 0)->text, expected.cells[0].text);
    // A live tick while playing changes nothing on screen.
    const int ticks = feeder->ticks();
    feeder->tick();
    QCOMPARE(feeder->ticks(), ticks + 1);
    QVERIFY(w->canvas()->liveOverlay().playback);
    QCOMPARE(w->canvas()->tileHeat(0, 0)->text, expected.cells[0].text);
    QCOMPARE(w->rankGrid()->cellHeat(0)->text, expected.cells[0].text);
    QCOMPARE(canvasCombo->currentText(), QStringLiteral("Step playback"));

    // Stop the playback: the live colouring is back at once.
    player->stop();
    QVERIFY(!feeder->paused());
    QVERIFY(!w->canvas()->liveOverlay().empty());
    QVERIFY(!w->canvas()->liveOverlay().playback);
    QCOMPARE(canvasCombo->currentText(), QStringLiteral("GPU utilization (live)"));
    QCOMPARE(gridCombo->currentText(), QStringLiteral("GPU utilization (live)"));
    QVERIFY(!w->canvas()->tileHeat(0, 0)->has);
    QVERIFY(w->statusBar()->currentMessage().contains(QStringLiteral("resumed")));

    // The job ends while the playback is shown: the playback stays.
    player->setTime(t);
    feeder->stop();
    QVERIFY(w->canvas()->liveOverlay().playback);
    QCOMPARE(w->canvas()->tileHeat(0, 0)->text, expected.cells[0].text);
    player->stop();
    QVERIFY(w->canvas()->liveOverlay().empty());   // nothing live left: layout colours
    QVERIFY(!w->canvas()->colourAxis().startsWith(QStringLiteral("live:")));
}

void TestPlayback::commandLineFrames() {
    // paraplan --playback-frames DIR: the frames (and playback.mp4 only when ffmpeg is on PATH).
    QTemporaryDir out;
    const QString dir = out.filePath(QStringLiteral("f"));
    QProcess p;
    p.start(QStringLiteral(PARAPLAN_GUI),
            {QStringLiteral("--playback-frames"), dir, QStringLiteral("--frames"), QStringLiteral("3"),
             QStringLiteral("--example"), QStringLiteral("llama3.1-8b-pp4-1node"), QStringLiteral("--size"),
             QStringLiteral("1800x1000")});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 0);
    const QStringList lines =
        QString::fromLocal8Bit(p.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.filter(QStringLiteral(".png")).size(), 3);
    for (int i = 0; i < 3; ++i) {
        const QImage img(QDir(dir).filePath(QStringLiteral("frame_%1.png").arg(i, 4, 10, QLatin1Char('0'))));
        QVERIFY(!img.isNull());
        QCOMPARE(img.size(), QSize(1800, 1000));
    }
    const bool ffmpeg = !QStandardPaths::findExecutable(QStringLiteral("ffmpeg")).isEmpty();
    QCOMPARE(QFileInfo::exists(QDir(dir).filePath(QStringLiteral("playback.mp4"))), ffmpeg);
    // A project that cannot be estimated: a clear message, exit 2.
    QProcess bad;
    bad.start(QStringLiteral(PARAPLAN_GUI),
              {QStringLiteral("--playback-frames"), dir, QStringLiteral("--example"),
               QStringLiteral("llama3.1-8b-pp4-1node"), QStringLiteral("--set"), QStringLiteral("/layout/tp=3")});
    QVERIFY(bad.waitForFinished(120000));
    QCOMPARE(bad.exitCode(), 2);
    QVERIFY(QString::fromLocal8Bit(bad.readAllStandardError()).contains(QStringLiteral("--playback-frames")));
}

namespace {
// Records, in order, the window's repaint passes (its UpdateRequest) as "frame".
class FrameLog : public QObject {
public:
    QStringList* log = nullptr;
    bool eventFilter(QObject* o, QEvent* e) override {
        if (e->type() == QEvent::UpdateRequest) log->append(QStringLiteral("frame"));
        return QObject::eventFilter(o, e);
    }
};

// A shown main window with the playback panel in front and its first playback built.
std::unique_ptr<MainWindow> shownPlayerWindow(const QTemporaryDir& dir) {
    auto w = exampleWindow(dir, "llama3.1-8b-pp4-1node");
    w->resize(1200, 800);
    w->show();
    w->raiseView(QStringLiteral("playback"));
    StepPlayer* player = w->stepPlayer();
    if (!QTest::qWaitFor([&] { return player->isVisible() && player->buildsStarted() > 0; }, 10000)) return nullptr;
    player->playback();   // waits for the first build
    QTest::qWait(50);
    return w;
}

int microbatchesAfter(const Project& p) { return p.layout.num_microbatches == 8 ? 16 : 8; }

// A valid edit: the global batch follows the number of microbatches.
void setMicrobatches(Project& p, int mb) {
    p.training.global_batch_size = p.training.global_batch_size / p.layout.num_microbatches * mb;
    p.layout.num_microbatches = mb;
}
}   // namespace

// The playback of an edit is built only after that edit's analysis arrived and the window
// painted the frame showing it: it never competes with the analysis or the first frame.
void TestPlayback::buildWaitsForAnalysisAndFrame() {
    auto w = shownPlayerWindow(dir_);
    QVERIFY(w);
    StepPlayer* player = w->stepPlayer();
    ProjectDocument* doc = w->document();
    QStringList log;
    FrameLog frames;
    frames.log = &log;
    w->installEventFilter(&frames);
    connect(doc, &ProjectDocument::analysisReady, &frames,
            [&](quint64 rev) { log.append(QStringLiteral("ready %1").arg(rev)); });
    connect(player, &StepPlayer::buildStarted, &frames,
            [&](quint64 rev) { log.append(QStringLiteral("build %1").arg(rev)); });
    const int before = player->buildsStarted();
    bool applied = false;   // waited for by signal: playback() would build it here if asked first
    connect(player, &StepPlayer::playbackChanged, &frames, [&] { applied = true; });
    const int mb = microbatchesAfter(doc->project());
    QVERIFY(doc->edit(QStringLiteral("Set microbatches"), [mb](Project& p) { setMicrobatches(p, mb); }));
    const quint64 rev = doc->revision();
    QTRY_VERIFY_WITH_TIMEOUT(log.contains(QStringLiteral("build %1").arg(rev)), 10000);
    const int ready = log.indexOf(QStringLiteral("ready %1").arg(rev));
    const int build = log.indexOf(QStringLiteral("build %1").arg(rev));
    QVERIFY2(ready >= 0 && ready < build, qPrintable(log.join(QStringLiteral(", "))));
    QVERIFY2(log.mid(ready, build - ready).contains(QStringLiteral("frame")),
             qPrintable(log.join(QStringLiteral(", "))));
    QCOMPARE(player->buildsStarted(), before + 1);   // one build for the edit, none before its analysis
    QTRY_VERIFY_WITH_TIMEOUT(applied, 30000);
    QVERIFY(player->playback());
    QCOMPARE(player->playback()->timeline.microbatches, mb);
    // Built on a worker, not on the GUI thread (playback() was not asked for it first).
    QVERIFY(player->lastBuildOnWorker());
}

// A second edit right as the first one's analysis arrives: the first one's pending build never
// starts; only the newest state's does.
void TestPlayback::editBeforeFrameSkipsStaleBuild() {
    auto w = shownPlayerWindow(dir_);
    QVERIFY(w);
    StepPlayer* player = w->stepPlayer();
    ProjectDocument* doc = w->document();
    QList<quint64> built;
    connect(player, &StepPlayer::buildStarted, player, [&](quint64 rev) { built.append(rev); });
    const int mbA = microbatchesAfter(doc->project());
    const int mbB = mbA == 8 ? 16 : 8;
    QVERIFY(doc->edit(QStringLiteral("Set microbatches"), [mbA](Project& p) { setMicrobatches(p, mbA); }));
    const quint64 revA = doc->revision();
    bool editedB = false;
    // Connected after the window's own handler: the player has just been told to refresh.
    auto once = connect(doc, &ProjectDocument::analysisReady, player, [&](quint64 rev) {
        if (rev != revA || editedB) return;
        editedB = true;
        doc->edit(QStringLiteral("Set microbatches"), [mbB](Project& p) { setMicrobatches(p, mbB); });
    });
    QTRY_VERIFY_WITH_TIMEOUT(editedB, 10000);
    disconnect(once);
    const quint64 revB = doc->revision();
    QVERIFY(revB != revA);
    QTRY_VERIFY_WITH_TIMEOUT(built.contains(revB), 10000);
    QVERIFY2(!built.contains(revA), "a build started for a state already replaced");
    QTRY_VERIFY_WITH_TIMEOUT(player->playback() && player->playback()->timeline.microbatches == mbB, 10000);
}

// An edit while a playback build runs: that build's result is dropped, the new state's is built.
void TestPlayback::editDuringBuildDropsIt() {
    auto w = shownPlayerWindow(dir_);
    QVERIFY(w);
    StepPlayer* player = w->stepPlayer();
    ProjectDocument* doc = w->document();
    int changedPlayback = 0;
    connect(player, &StepPlayer::playbackChanged, player, [&] { ++changedPlayback; });
    const int mbA = microbatchesAfter(doc->project());
    const int mbB = mbA == 8 ? 16 : 8;
    QVERIFY(doc->edit(QStringLiteral("Set microbatches"), [mbA](Project& p) { setMicrobatches(p, mbA); }));
    const quint64 revA = doc->revision();
    const int dropped = player->buildsDropped();
    bool editedB = false;
    // The build of A has just started on a worker; its result comes back through the event loop.
    auto once = connect(player, &StepPlayer::buildStarted, player, [&](quint64 rev) {
        if (rev != revA || editedB) return;
        editedB = true;
        doc->edit(QStringLiteral("Set microbatches"), [mbB](Project& p) { setMicrobatches(p, mbB); });
    });
    QTRY_VERIFY_WITH_TIMEOUT(editedB, 10000);
    disconnect(once);
    QTRY_COMPARE_WITH_TIMEOUT(player->buildsDropped(), dropped + 1, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(changedPlayback == 1, 10000);   // B's, never A's
    QVERIFY(player->playback());
    QCOMPARE(player->playback()->timeline.microbatches, mbB);
    QCOMPARE(changedPlayback, 1);
}

// An edit stops the playback build of the state it replaced (its cancel flag), so the build
// does not hold a core while the new state's analysis and first frame need it. At 65,536 GPUs a
// build takes about 0.4 s on one core: the edit, made as soon as the build starts, comes first
// even on a loaded machine (at 16,384 GPUs, 0.1 s, the build sometimes ended before the edit
// under ctest -j2, and was dropped rather than cancelled).
void TestPlayback::editCancelsRunningBuild() {
    auto w = std::make_unique<MainWindow>(nullptr, dir_.filePath(QStringLiteral("rec")));
    w->setProject(scale_project(8192), QString());
    w->resize(1200, 800);
    w->show();
    w->raiseView(QStringLiteral("playback"));
    StepPlayer* player = w->stepPlayer();
    ProjectDocument* doc = w->document();
    QVERIFY(QTest::qWaitFor([&] { return player->isVisible() && player->buildsStarted() > 0; }, 20000));
    QVERIFY(player->playback());   // waits for the first build
    QTest::qWait(50);              // (whose watcher then reports it, as shownPlayerWindow() lets it)
    const int cancelled = player->buildsCancelled(), dropped = player->buildsDropped();
    int tp = doc->project().layout.tp;
    const auto flipTp = [&] {
        tp = tp == 4 ? 2 : 4;
        const int dp = doc->project().world_size() / (tp * doc->project().layout.pp);
        QString error;
        QVERIFY2(doc->applyChanges(
                     QStringLiteral("Set tp"),
                     {{"/layout/tp", tp}, {"/training/global_batch_size", doc->project().layout.num_microbatches * dp}},
                     &error),
                 qPrintable(error));
    };
    flipTp();
    const quint64 revA = doc->revision();
    bool editedB = false;
    auto once = connect(player, &StepPlayer::buildStarted, player, [&](quint64 rev) {
        if (rev != revA || editedB) return;
        editedB = true;
        flipTp();   // A's build has just started on the player's worker
    });
    QTRY_VERIFY_WITH_TIMEOUT(editedB, 20000);
    disconnect(once);
    // A's build came back stopped early, and was not applied; B's was.
    QTRY_COMPARE_WITH_TIMEOUT(player->buildsCancelled(), cancelled + 1, 20000);
    QCOMPARE(player->buildsDropped(), dropped + 1);
    QTRY_VERIFY_WITH_TIMEOUT(player->playback().has_value(), 20000);
    QCOMPARE(player->playback()->estimate.config.tp, tp);
}

QTEST_MAIN(TestPlayback)
#include "tst_playback.moc"

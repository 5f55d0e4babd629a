// docs/concepts.md quotes the app's figures; they are checked here against the estimator, so a
// caption cannot go stale when the model changes (issue 30: its ZeRO captions said 141 and 37 GiB
// while the Memory view showed 146.6 and 42.5). The projects are the ones scripts/screenshots.sh
// renders the pictures from.
#include "estimate/estimate.h"
#include "lessons/lesson.h"
#include "project/project.h"
#include "topology/build_rank_map.h"
#include "topology/mesh_request.h"

#include <QtTest>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

using namespace paraplan;

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string concepts() {
    std::ifstream f(PARAPLAN_SOURCE_DIR "/docs/concepts.md");
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// The line of the picture `image` (its caption is the image's alt text).
std::string captionOf(const std::string& doc, const std::string& image) {
    const auto at = doc.find("(images/" + image + ")");
    if (at == std::string::npos) return {};
    const auto start = doc.rfind("![", at);
    return doc.substr(start, at - start);
}

// "llama3.1-8b-pp4-1node" with --set /layout/pp=1 --set /layout/tp=1 --set
// /layout/num_microbatches=1 --set /layout/zero_stage=Z, as scripts/screenshots.sh shows it.
estimate::Estimate zeroPicture(int stage) {
    Project p = load_example("llama3.1-8b-pp4-1node");
    p.layout.pp = 1;
    p.layout.tp = 1;
    p.layout.num_microbatches = 1;
    p.layout.zero_stage = stage;
    return estimate::estimate_project(p);
}

QString gib(double bytes, int decimals) { return QString::number(bytes / kGiB, 'f', decimals); }

// The members of `kind`'s group holding rank 0, as the rank map builds them.
std::vector<int> groupOfRank0(const Project& p, const char* kind) {
    const topology::RankMap map = topology::build_rank_map(topology::from_project(p), &p.cluster);
    const auto g = map.group_of(kind, 0);
    return {g.begin(), g.end()};
}

// "{0, 4}" or "0, 8, 16, 24": the members as a caption writes them.
QString listed(const std::vector<int>& ranks, bool braces) {
    QStringList parts;
    for (int r : ranks) parts << QString::number(r);
    const QString joined = parts.join(QStringLiteral(", "));
    return braces ? QStringLiteral("{%1}").arg(joined) : joined;
}
}   // namespace

class TestConceptsDoc : public QObject {
    Q_OBJECT
private slots:
    void zeroCaptionsAreTheMemoryViews() {
        const std::string doc = concepts();
        QVERIFY(!doc.empty());
        for (const int stage : {0, 3}) {
            const auto e = zeroPicture(stage);
            const QString caption = QString::fromStdString(
                captionOf(doc, "concept-zero-" + std::to_string(stage) + ".png"));
            QVERIFY2(!caption.isEmpty(), "no ZeRO picture in docs/concepts.md");
            const QString peak = gib(e.memory.peak_bytes, 1) + QStringLiteral(" GiB per GPU");
            QVERIFY2(caption.contains(peak), qPrintable(caption + QStringLiteral(" / the estimate: ") + peak));
            QCOMPARE(caption.contains(QStringLiteral("does not fit")), stage == 0);
        }
        // The text's model states: 15 + 15 + 90 GiB at stage 0, their sum 15 GiB at stage 3.
        const auto e0 = zeroPicture(0);
        const auto& s0 = e0.memory.stages.front();
        const QString states0 = QStringLiteral("stage 0 needs %1 + %2 + %3 GiB of model states")
                                    .arg(gib(s0.params, 0), gib(s0.grads, 0), gib(s0.optimizer, 0));
        QVERIFY2(QString::fromStdString(doc).contains(states0), qPrintable(states0));
        const auto e3 = zeroPicture(3);
        const auto& s3 = e3.memory.stages.front();
        const QString states3 =
            QStringLiteral("(2 + 2 + 12)·Ψ/8 = %1 GiB").arg(gib(s3.params + s3.grads + s3.optimizer, 0));
        QVERIFY2(QString::fromStdString(doc).contains(states3), qPrintable(states3));
    }

    // The schedule pictures (scripts/screenshots.sh: the 8B example, pp 4, 8 microbatches, each
    // schedule): each caption's bubble is the timeline's share of the span, and its microbatches in
    // flight those the estimate holds on stage 0.
    void scheduleCaptionsAreTheTimelines() {
        const std::string doc = concepts();
        struct Shot {
            const char* image;
            Schedule schedule;
            int chunks;
            const char* inflight;   // the caption's wording of stage 0's in-flight microbatches ("" none)
        };
        for (const Shot& shot :
             {Shot{"concept-schedule-gpipe.png", Schedule::gpipe, 1, "%1 microbatches in flight"},
              Shot{"concept-schedule-1f1b.png", Schedule::one_f_one_b, 1, "at most %1 microbatches in flight"},
              Shot{"concept-schedule-interleaved.png", Schedule::interleaved, 2, ""},
              Shot{"concept-schedule-zbh1.png", Schedule::zb1p, 1, ""},
              Shot{"concept-schedule-zbv.png", Schedule::zbv, 2, ""}}) {
            Project p = load_example("llama3.1-8b-pp4-1node");
            QCOMPARE(p.layout.pp, 4);
            QCOMPARE(p.layout.num_microbatches, 8);
            p.layout.schedule = shot.schedule;
            p.layout.chunks = shot.chunks;
            const nlohmann::json f = lessons::figures_json(p);
            const QString caption = QString::fromStdString(captionOf(doc, shot.image));
            QVERIFY2(!caption.isEmpty(), shot.image);
            const QString bubble = QStringLiteral("bubble %1 %")
                                       .arg(100 * lessons::figure_value(f, "timeline.bubble_fraction").value_or(-1), 0,
                                            'f', 1);
            QVERIFY2(caption.contains(bubble), qPrintable(caption + QStringLiteral(" / the timeline: ") + bubble));
            if (*shot.inflight) {
                const QString inflight =
                    QString::fromLatin1(shot.inflight)
                        .arg(lessons::figure_value(f, "memory.stages.0.inflight_microbatches").value_or(-1));
                QVERIFY2(caption.contains(inflight), qPrintable(caption + QStringLiteral(" / ") + inflight));
            }
        }
    }

    // The group pictures: the group of rank 0 each caption names is the one the rank map builds for
    // the project scripts/screenshots.sh renders.
    void groupCaptionsAreTheRankMaps() {
        const std::string doc = concepts();
        auto check = [&](const char* image, const Project& p, const char* kind, bool braces) {
            const QString caption = QString::fromStdString(captionOf(doc, image));
            const QString members = listed(groupOfRank0(p, kind), braces);
            QVERIFY2(!caption.isEmpty() && caption.contains(members),
                     qPrintable(QString::fromLatin1(image) + QStringLiteral(": ") + caption +
                                QStringLiteral(" / the rank map: ") + members));
        };
        const Project gpt2 = load_example("gpt2-1node");
        check("concept-grid-dp.png", gpt2, "dp", true);
        check("concept-grid-tp.png", gpt2, "tp", true);
        check("concept-order-colossalai.png", gpt2, "pp", true);
        Project megatron = gpt2;
        megatron.layout.framework = "megatron";
        check("concept-order-megatron.png", megatron, "pp", true);
        check("concept-pipeline-canvas.png", load_example("llama3.1-70b-4nodes"), "pp", false);
        Project ulysses = load_example("llama3.1-8b-pp4-1node");
        ulysses.layout.pp = 1;
        ulysses.layout.tp = 2;
        ulysses.layout.sp = 2;
        ulysses.layout.sp_mode = SpMode::all_to_all;
        check("concept-sequence-ulysses.png", ulysses, "sp", true);
        check("concept-context-ring.png",
              load_project(PARAPLAN_SOURCE_DIR "/docs/projects/llama3.1-8b-128k-context.paraplan.json"), "sp", false);
        // Mixtral: "the 8 GPUs of node 0" is ranks 0 to 7.
        const auto ep = groupOfRank0(load_example("mixtral-8x7b-2nodes-ep"), "ep");
        QCOMPARE(ep, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
        QVERIFY(captionOf(doc, "concept-expert-canvas.png").find("the ep group of rank 0 is the 8 GPUs of node 0") !=
                std::string::npos);
    }

    // The Pass times paragraph and its picture (scripts/screenshots.sh: the example with zbh1, the
    // estimate's pass times): W and B relative to F, ZB-H1's bubble against 1F1B's and its share of the
    // span, from the timeline's figures.
    void passTimesAreTheTimelines() {
        const QString doc = QString::fromStdString(concepts());
        Project p = load_example("llama3.1-8b-pp4-1node");
        p.layout.schedule = Schedule::zb1p;
        const nlohmann::json f = lessons::figures_json(p, {estimate::PassTimesMode::Estimate, {}});
        const auto v = [&](const char* path) { return lessons::figure_value(f, path).value_or(-1); };
        const QString text = QStringLiteral("(W = %1 F, B = %2 F) ZB-H1 keeps %3 of 1F1B's bubble, %4 % of the span")
                                 .arg(v("timeline.pass_times.backward_weight"), 0, 'f', 2)
                                 .arg(v("timeline.pass_times.backward_input"), 0, 'f', 2)
                                 .arg(v("timeline.bubble_vs_1f1b"), 0, 'f', 2)
                                 .arg(100 * v("timeline.bubble_fraction"), 0, 'f', 1);
        QVERIFY2(doc.contains(text), qPrintable(text));
        const QString caption = QString::fromStdString(captionOf(concepts(), "concept-schedule-zbh1-estimate.png"));
        const QString shown = QStringLiteral("bubble %1 %, %2 × 1F1B's")
                                  .arg(100 * v("timeline.bubble_fraction"), 0, 'f', 1)
                                  .arg(v("timeline.bubble_vs_1f1b"), 0, 'f', 2);
        QVERIFY2(caption.contains(shown), qPrintable(caption + QStringLiteral(" / ") + shown));
        // Equal passes: the picture above it, a third of 1F1B's.
        const nlohmann::json eq = lessons::figures_json(p);
        QVERIFY(std::abs(lessons::figure_value(eq, "timeline.bubble_vs_1f1b").value_or(0) - 1.0 / 3) < 1e-9);
        QVERIFY(doc.contains(QStringLiteral("instead of %1 %")
                                 .arg(100 * *lessons::figure_value(eq, "timeline.bubble_fraction"), 0, 'f', 1)));
    }
};

QTEST_APPLESS_MAIN(TestConceptsDoc)
#include "tst_concepts_doc.moc"

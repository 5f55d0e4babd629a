// docs/concepts.md quotes the app's figures; they are checked here against the estimator, so a
// caption cannot go stale when the model changes (issue 30: its ZeRO captions said 141 and 37 GiB
// while the Memory view showed 146.6 and 42.5). The projects are the ones scripts/screenshots.sh
// renders the pictures from.
#include "estimate/estimate.h"
#include "project/project.h"

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
};

QTEST_APPLESS_MAIN(TestConceptsDoc)
#include "tst_concepts_doc.moc"

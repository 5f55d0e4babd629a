// paraplan-cli compare as a process: the JSON contract (each project's object is the one
// `estimate --json` prints), the differences, the process-group changes and usage errors.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "clitest.h"

namespace {

QJsonObject groupChange(const QJsonArray& groups, const char* kind) {
    for (const auto& g : groups)
        if (g.toObject()["kind"].toString() == QLatin1String(kind)) return g.toObject();
    return {};
}

}   // namespace

class TestCliCompare : public QObject {
    Q_OBJECT
private slots:
    // Under each file name, compare carries exactly what `estimate FILE --json` prints.
    void projectsAreTheEstimateObjects() {
        QTemporaryDir dir;
        const QString a = example("llama3.1-70b-4nodes");
        const QString b = write_variant(dir, "llama3.1-70b-4nodes", {{"tp", 4}}, "tp4.paraplan.json");
        const Run r = cli({"compare", a, b, "--json"});
        QVERIFY2(r.code == 0 || r.code == 1, r.err.constData());
        const QJsonObject j = parseObject(r.out);
        QCOMPARE(j["files"].toArray(), (QJsonArray{a, b}));
        QCOMPARE(j["baseline"].toString(), a);
        const QJsonObject projects = j["projects"].toObject();
        QCOMPARE(projects.size(), 2);
        for (const QString& f : {a, b}) {
            const Run e = cli({"estimate", f, "--json"});
            const QJsonObject est = parseObject(e.out);
            QVERIFY(!est.isEmpty());
            const QJsonObject cmp = projects[f].toObject();
            QCOMPARE(cmp["time"].toObject()["step_s"].toDouble(), est["time"].toObject()["step_s"].toDouble());
            QCOMPARE(cmp["memory"].toObject()["peak_gib"].toDouble(), est["memory"].toObject()["peak_gib"].toDouble());
            QCOMPARE(cmp["mfu"].toDouble(), est["mfu"].toDouble());
            QCOMPARE(cmp, est);   // every field, the same serialization
        }
        // tp 8 -> 4 on the same 32 GPUs: a different step time and less weight per GPU... and more memory.
        const double stepA = projects[a].toObject()["time"].toObject()["step_s"].toDouble();
        const double stepB = projects[b].toObject()["time"].toObject()["step_s"].toDouble();
        QVERIFY(stepA > 0 && stepB > 0 && stepA != stepB);
        QVERIFY(projects[b].toObject()["memory"].toObject()["peak_gib"].toDouble() >
                projects[a].toObject()["memory"].toObject()["peak_gib"].toDouble());

        const QJsonArray diffs = j["differences"].toArray();
        QCOMPARE(diffs.size(), 1);
        const QJsonObject d = diffs[0].toObject();
        QCOMPARE(d["file"].toString(), b);
        QCOMPARE(d["baseline"].toString(), a);
        const QJsonObject step = d["metrics"].toObject()["step_s"].toObject();
        QCOMPARE(step["baseline"].toDouble(), stepA);
        QCOMPARE(step["value"].toDouble(), stepB);
        QVERIFY(qAbs(step["delta"].toDouble() - (stepB - stepA)) < 1e-12);
        QVERIFY(qAbs(step["ratio"].toDouble() - stepB / stepA) < 1e-12);
        for (const char* m : {"peak_gib", "mfu", "tokens_per_s", "bubble_s", "time_to_train_s"})
            QVERIFY2(d["metrics"].toObject().contains(QLatin1String(m)), m);
        // The one knob that differs.
        const QJsonArray knobs = d["knobs"].toArray();
        QCOMPARE(knobs.size(), 1);
        QCOMPARE(knobs[0].toObject()["field"].toString(), QStringLiteral("/layout/tp"));
        QCOMPARE(knobs[0].toObject()["from"].toInt(), 8);
        QCOMPARE(knobs[0].toObject()["to"].toInt(), 4);
        // tp groups: 4 groups of 8 -> 8 groups of 4, none crossing a node either way; dp 1 -> 2.
        const QJsonObject tp = groupChange(d["groups"].toArray(), "tp");
        QCOMPARE(tp["change"].toString(), QStringLiteral("resized"));
        QCOMPARE(tp["before"].toObject()["group_size"].toInt(), 8);
        QCOMPARE(tp["after"].toObject()["group_size"].toInt(), 4);
        QCOMPARE(tp["after"].toObject()["num_groups"].toInt(), 8);
        QCOMPARE(tp["now_crosses_nodes"].toBool(), false);
        const QJsonObject dp = groupChange(d["groups"].toArray(), "dp");
        QCOMPARE(dp["after"].toObject()["group_size"].toInt(), 2);
        // Every project's groups are listed too.
        QVERIFY(!j["process_groups"].toObject()[a].toArray().isEmpty());
    }

    // tp 16 on nodes of 8 GPUs: the tp groups now span two nodes each.
    void tpAcrossNodes() {
        QTemporaryDir dir;
        const QString a = example("llama3.1-70b-4nodes");
        const QString b = write_variant(dir, "llama3.1-70b-4nodes", {{"tp", 16}, {"pp", 2}}, "tp16.paraplan.json");
        const QString c = write_variant(dir, "llama3.1-70b-4nodes", {{"schedule", "interleaved"}, {"chunks", 2}},
                                        "vpp.paraplan.json");
        const Run r = cli({"compare", a, b, c, "--json"});
        QVERIFY2(r.code == 0 || r.code == 1, r.err.constData());
        const QJsonObject j = parseObject(r.out);
        const QJsonArray diffs = j["differences"].toArray();
        QCOMPARE(diffs.size(), 2);
        const QJsonObject tp = groupChange(diffs[0].toObject()["groups"].toArray(), "tp");
        QCOMPARE(tp["change"].toString(), QStringLiteral("resized"));
        QCOMPARE(tp["now_crosses_nodes"].toBool(), true);
        QCOMPARE(tp["before"].toObject()["groups_crossing_nodes"].toInt(), 0);
        QCOMPARE(tp["after"].toObject()["groups_crossing_nodes"].toInt(), 2);   // 32 GPUs / 16
        QCOMPARE(tp["after"].toObject()["max_nodes_spanned"].toInt(), 2);
        const QJsonObject pp = groupChange(diffs[0].toObject()["groups"].toArray(), "pp");
        QCOMPARE(pp["before"].toObject()["group_size"].toInt(), 4);
        QCOMPARE(pp["after"].toObject()["group_size"].toInt(), 2);
        // The interleaved variant changes the schedule, not a single group.
        QCOMPARE(diffs[1].toObject()["groups"].toArray().size(), 0);
        QStringList fields;
        for (const auto& k : diffs[1].toObject()["knobs"].toArray()) fields << k.toObject()["field"].toString();
        QCOMPARE(fields, (QStringList{"/layout/chunks", "/layout/schedule"}));
        // Interleaving shrinks the bubble of the same 1f1b layout.
        const QJsonObject bubble = diffs[1].toObject()["metrics"].toObject()["bubble_s"].toObject();
        QVERIFY(bubble["value"].toDouble() < bubble["baseline"].toDouble());

        // The text form names the change.
        const Run t = cli({"compare", a, b});
        QVERIFY2(t.out.contains("NOW CROSSES NODES"), t.out.constData());
        QVERIFY(t.out.contains("/layout/tp: 8 -> 16"));
        QVERIFY(t.out.contains("step s"));
    }

    // A project whose layout does not divide is a finding, carried as estimate --json carries it.
    void brokenLayoutIsAFinding() {
        QTemporaryDir dir;
        const QString a = example("llama3.1-70b-4nodes");
        const QString b = write_variant(dir, "llama3.1-70b-4nodes", {{"tp", 3}}, "tp3.paraplan.json");
        const Run r = cli({"compare", a, b, "--json"});
        QCOMPARE(r.code, 1);
        const QJsonObject j = parseObject(r.out);
        const QJsonObject pb = j["projects"].toObject()[b].toObject();
        QCOMPARE(pb, parseObject(cli({"estimate", b, "--json"}).out));
        QVERIFY(pb.contains("error"));
        QVERIFY(j["differences"].toArray()[0].toObject()["metrics"].toObject()["step_s"].toObject()["value"].isNull());
    }

    void usage() {
        QCOMPARE(cli({"compare", example("gpt2-1node")}).code, 2);
        QCOMPARE(cli({"compare", example("gpt2-1node"), example("gpt2-1node")}).code, 2);
        const Run r = cli({"compare", example("gpt2-1node"), QStringLiteral("/nonexistent/x.paraplan.json")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("/nonexistent/x.paraplan.json"));
    }
};

QTEST_GUILESS_MAIN(TestCliCompare)
#include "tst_cli_compare.moc"

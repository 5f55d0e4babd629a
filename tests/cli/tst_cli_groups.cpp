// paraplan-cli groups as a process: the JSON contract, exit codes, project defaults.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#include "clitest.h"

namespace {

// paraplan-cli groups ARGS
Run groups_cli(const QStringList& args) { return cli(QStringList{QStringLiteral("groups")} + args); }

QJsonArray groups(std::initializer_list<std::initializer_list<int>> gs) {
    QJsonArray a;
    for (const auto& g : gs) {
        QJsonArray x;
        for (int r : g) x.append(r);
        a.append(x);
    }
    return a;
}

}   // namespace

class TestCliGroups : public QObject {
    Q_OBJECT
private slots:
    // ColossalAI worked example of docs/topology.md: W=16 tp2 pp2 sp2 all_to_all.
    void colossalaiExample() {
        const Run r = groups_cli({"--framework", "colossalai", "--world", "16", "--tp", "2", "--pp", "2", "--sp", "2",
                                  "--sp-mode", "all_to_all", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject j = parseObject(r.out);
        QCOMPARE(j["framework"].toString(), QStringLiteral("colossalai"));
        QCOMPARE(j["world_size"].toInt(), 16);
        const QJsonArray axes = j["axes"].toArray();
        QCOMPARE(axes.size(), 4);
        QStringList names;
        for (const auto& a : axes) names << a.toObject()["name"].toString();
        QCOMPARE(names, (QStringList{"dp", "pp", "tp", "sp"}));
        QCOMPARE(axes[0].toObject()["size"].toInt(), 2);
        const QJsonArray ranks = j["ranks"].toArray();
        QCOMPARE(ranks.size(), 16);
        const QJsonObject r10 = ranks[10].toObject();
        QCOMPARE(r10["rank"].toInt(), 10);
        QCOMPARE(r10["coords"].toObject()["dp"].toInt(), 1);
        QCOMPARE(r10["coords"].toObject()["tp"].toInt(), 1);
        QCOMPARE(r10["node"].toInt(), 1);
        QCOMPARE(r10["local_rank"].toInt(), 2);
        const QJsonObject g = j["groups"].toObject();
        QCOMPARE(g["tp"].toArray(), groups({{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}}));
        QCOMPARE(g["sp"].toArray(), groups({{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}}));
        QCOMPARE(g["mixed_dp"].toArray(), groups({{0, 1, 8, 9}, {2, 3, 10, 11}, {4, 5, 12, 13}, {6, 7, 14, 15}}));
        QCOMPARE(g["dp"].toArray().size(), 8);
        QCOMPARE(g["pp"].toArray().size(), 8);
        QVERIFY(r.err.isEmpty());
    }

    void megatronOrderAndNodes() {
        const Run r = groups_cli({"--framework", "megatron", "--world", "16", "--gpus-per-node", "4", "--tp", "2",
                                  "--pp", "2", "--cp", "2", "--ep", "4", "--etp", "1", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject j = parseObject(r.out);
        const QJsonObject g = j["groups"].toObject();
        for (const char* k : {"tp", "cp", "dp", "dp_cp", "pp", "tp_pp", "ep", "etp", "edp", "embedding"})
            QVERIFY2(g.contains(k), k);
        QCOMPARE(g["ep"].toArray(), groups({{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}}));
        QCOMPARE(g["pp"].toArray()[0].toArray(), groups({{0, 8}})[0].toArray());
        const QJsonObject spans = j["group_spans"].toObject();
        QCOMPARE(spans["pp"].toObject()["groups_crossing_nodes"].toInt(), 8);
        QCOMPARE(spans["tp_cp"].toObject()["max_nodes_spanned"].toInt(), 1);
        // --use-tp-pp-dp-mapping order with CP 1
        const Run o = groups_cli({"--framework", "megatron", "--world", "16", "--tp", "2", "--pp", "2", "--order",
                                  "tp-cp-ep-pp-dp", "--json"});
        QCOMPARE(o.code, 0);
        QCOMPARE(parseObject(o.out)["groups"].toObject()["pp"].toArray()[0].toArray(), groups({{0, 2}})[0].toArray());
    }

    void torchtitanAndDeepspeed() {
        const Run t = groups_cli({"--framework", "torchtitan", "--world", "16", "--pp", "2", "--dp-shard", "-1", "--cp",
                                  "2", "--tp", "2", "--json"});
        QCOMPARE(t.code, 0);
        const QJsonObject tj = parseObject(t.out);
        QCOMPARE(tj["axes"].toArray()[2].toObject()["name"].toString(), QStringLiteral("dp_shard"));
        QCOMPARE(tj["axes"].toArray()[2].toObject()["size"].toInt(), 2);
        const Run d = groups_cli({"--framework", "deepspeed", "--world", "16", "--pp", "2", "--tp", "2", "--json"});
        QCOMPARE(d.code, 0);
        QCOMPARE(parseObject(d.out)["groups"].toObject()["dp"].toArray(),
                 groups({{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}}));
        const Run m = groups_cli({"--framework", "devicemesh", "--world", "16", "--order", "dp:2-tp:8", "--json"});
        QCOMPARE(m.code, 0);
        QCOMPARE(parseObject(m.out)["groups"].toObject()["tp"].toArray().size(), 2);
    }

    void invalidLayoutExitsOne() {
        const Run r = groups_cli({"--framework", "colossalai", "--world", "12", "--tp", "8", "--json"});
        QCOMPARE(r.code, 1);
        const QJsonObject j = parseObject(r.out);
        QCOMPARE(j["valid"].toBool(true), false);
        const QJsonArray ds = j["diagnostics"].toArray();
        QVERIFY(!ds.isEmpty());
        QCOMPARE(ds[0].toObject()["rule"].toString(), QStringLiteral("colossalai.world_divisible"));
        // Without --json: readable text, same exit code.
        const Run t = groups_cli({"--framework", "colossalai", "--world", "12", "--tp", "8"});
        QCOMPARE(t.code, 1);
        QVERIFY(t.out.contains("colossalai.world_divisible"));
    }

    void usageErrors() {
        QCOMPARE(groups_cli({"--framework", "colossalai", "--json"}).code, 2);            // no --world
        QCOMPARE(groups_cli({"--framework", "jax", "--world", "8", "--json"}).code, 2);   // unknown framework
        QCOMPARE(groups_cli({"--framework", "megatron", "--world", "8", "--tp", "x", "--json"}).code, 2);
        QCOMPARE(groups_cli({"--framework", "megatron", "--world", "8", "--bogus", "1"}).code, 2);
        QCOMPARE(groups_cli({"--project", "/nonexistent/file.paraplan.json", "--json"}).code, 2);
        // An sp mode outside the table: a usage error naming the option, the value and every mode.
        const Run sp = groups_cli({"--framework", "colossalai", "--world", "8", "--tp", "2", "--sp-mode", "zigzag"});
        QCOMPARE(sp.code, 2);
        QVERIFY2(sp.err.contains("--sp-mode: expected one of \"none\", \"split_gather\", \"ring\", \"all_to_all\", "
                                 "\"ring_attn\", got 'zigzag'"),
                 sp.err.constData());
    }

    void readableTable() {
        const Run r = groups_cli({"--framework", "colossalai", "--world", "8", "--tp", "2", "--pp", "2"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("mesh (outer -> inner): dp=2 pp=2 tp=2 sp=1"));
        QVERIFY(r.out.contains("mixed_dp"));
    }

    // --project: the project's cluster and layout are defaults, flags override.
    void projectDefaults() {
        const QString file = QStringLiteral(PARAPLAN_SOURCE_DIR
                                            "/resources/examples/llama3.1-70b-4nodes.paraplan.json");
        const Run r = groups_cli({"--project", file, "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject j = parseObject(r.out);
        QCOMPARE(j["world_size"].toInt(), 32);
        QCOMPARE(j["num_nodes"].toInt(), 4);
        const Run o = groups_cli({"--project", file, "--framework", "deepspeed", "--pp", "4", "--tp", "8", "--json"});
        QCOMPARE(o.code, 0);
        QCOMPARE(parseObject(o.out)["framework"].toString(), QStringLiteral("deepspeed"));
    }
};

QTEST_GUILESS_MAIN(TestCliGroups)
#include "tst_cli_groups.moc"

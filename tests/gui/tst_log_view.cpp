// The job log's filters: one rank, one node, every rank of one process group (from the
// layout's rank map), and a search text; the app's own messages always show.
#include <qcustomplot.h>   // first: it uses the signals/foreach keywords (docs/hacking.md)

#include "guitest.h"
#include "run/log_view.h"
#include "project/project.h"
#include "topology/build_rank_map.h"
#include "topology/mesh_request.h"

#include <QTest>

using paraplan::widgets::LogLine;
using paraplan::widgets::LogView;

class TestLogView : public QObject {
    Q_OBJECT

    static QStringList lines(const LogView& v) { return v.visibleText().split(QLatin1Char('\n'), Qt::SkipEmptyParts); }

private slots:
    void filtersByRankNodeGroupAndSearch() {
        paraplan::Project p = paraplan::load_example("llama3.1-70b-4nodes");   // 32 ranks: tp 8 x pp 4, 4 nodes
        LogView v;
        v.resize(800, 400);
        v.show();
        v.setProject(p);
        v.append({QStringLiteral("paraplan: job started"), {}, -1});
        for (int r = 0; r < 32; ++r) {
            v.append({QStringLiteral("[rank-%1] step 1 loss 2.5").arg(r), {r}, r / 8});
            v.append({QStringLiteral("[rank-%1] NCCL INFO ring").arg(r), {r}, r / 8});
        }
        QCOMPARE(v.lineCount(), 65);
        QCOMPARE(v.visibleLineCount(), 65);

        QVERIFY(v.setFilter(QStringLiteral("rank 13")));
        QCOMPARE(lines(v),
                 (QStringList{QStringLiteral("paraplan: job started"), QStringLiteral("[rank-13] step 1 loss 2.5"),
                              QStringLiteral("[rank-13] NCCL INFO ring")}));

        QVERIFY(v.setFilter(QStringLiteral("node node2")));   // ranks 16..23
        QCOMPARE(v.visibleLineCount(), 1 + 16);
        QVERIFY(v.visibleText().contains(QStringLiteral("[rank-16]")) &&
                v.visibleText().contains(QStringLiteral("[rank-23]")));
        QVERIFY(!v.visibleText().contains(QStringLiteral("[rank-24]")));

        // A pipeline group: the ranks the framework's rank map puts in pp group 5.
        const auto map = paraplan::topology::build_rank_map(paraplan::topology::from_project(p), &p.cluster);
        const auto pp5 = map.group_list("pp").at(5);
        QVERIFY(v.setFilter(QStringLiteral("pp group 5 ")));
        QCOMPARE(v.visibleLineCount(), 1 + 2 * int(pp5.size()));
        for (int r : pp5) QVERIFY(v.visibleText().contains(QStringLiteral("[rank-%1] step").arg(r)));

        // Search within the filter, case-insensitive.
        v.setSearch(QStringLiteral("nccl"));
        QCOMPARE(v.visibleLineCount(), int(pp5.size()));
        for (const QString& l : lines(v)) QVERIFY(l.contains(QStringLiteral("NCCL")));
        // New lines follow the filter and the search as they arrive.
        v.append({QStringLiteral("[rank-%1] NCCL WARN slow").arg(pp5.front()), {pp5.front()}, pp5.front() / 8});
        v.append(
            {QStringLiteral("[rank-%1] NCCL WARN slow").arg(pp5.front() == 0 ? 1 : 0), {pp5.front() == 0 ? 1 : 0}, 0});
        QCOMPARE(v.visibleLineCount(), int(pp5.size()) + 1);
        QVERIFY(!v.setFilter(QStringLiteral("no such scope")));
        QVERIFY(v.setFilter(QStringLiteral("All")));
        v.setSearch(QString());
        QCOMPARE(v.visibleLineCount(), 67);
    }
};

QTEST_MAIN(TestLogView)
#include "tst_log_view.moc"

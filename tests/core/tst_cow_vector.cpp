// CowVector (core/util/cow_vector.h): copies share one buffer until one of them writes; a write
// detaches only the writer; const reads never detach. And the Cluster built on it: a copied
// Project shares its nodes and rank order, and a fix applied to the copy leaves the original.
#include "project/project.h"
#include "rules/apply_fix.h"
#include "rules/validate.h"
#include "util/cow_vector.h"

#include <QtTest>

#include <string>
#include <utility>
#include <vector>

using namespace paraplan;

namespace {
Project nodesOf(int count, int gpus) {
    Project p;
    p.cluster.nodes.clear();
    for (int i = 0; i < count; ++i) {
        Node n;
        n.name = "node" + std::to_string(i);
        n.gpu = "h100-sxm";
        n.gpus = gpus;
        p.cluster.nodes.push_back(n);
    }
    return p;
}
}   // namespace

class TestCowVector : public QObject {
    Q_OBJECT
private slots:
    void copiesShareTheBuffer() {
        CowVector<int> a{1, 2, 3};
        const CowVector<int> b = a;
        QCOMPARE(b.data(), std::as_const(a).data());
        QVERIFY(a.shares_with(b));
        QVERIFY(a == b);
        CowVector<int> c;
        c = b;   // assignment shares too
        QCOMPARE(c.size(), std::size_t(3));
        QVERIFY(c.shares_with(a));
    }

    void writeDetachesOnlyTheWriter() {
        CowVector<int> a{1, 2, 3};
        const CowVector<int> b = a;
        const int* shared = b.data();
        a[1] = 20;
        QVERIFY(std::as_const(a).data() != shared);   // a has its own now
        QCOMPARE(b.data(), shared);                   // b kept the old buffer
        QCOMPARE(b.vec(), (std::vector<int>{1, 2, 3}));
        QCOMPARE(a.vec(), (std::vector<int>{1, 20, 3}));
        QVERIFY(!(a == b));

        // A sole owner writes in place: no copy.
        const int* own = std::as_const(a).data();
        a[0] = 10;
        a.back() = 30;
        QCOMPARE(std::as_const(a).data(), own);
        QCOMPARE(a.vec(), (std::vector<int>{10, 20, 30}));
    }

    void everyMutatorDetaches() {
        const CowVector<int> orig{5, 6, 7};
        const auto check = [&](const char* what, auto&& mutate, std::vector<int> want) {
            CowVector<int> c = orig;
            mutate(c);
            QVERIFY2(!c.shares_with(orig), what);
            QVERIFY2(orig.vec() == (std::vector<int>{5, 6, 7}), what);
            QVERIFY2(c.vec() == want, what);
        };
        check("push_back", [](CowVector<int>& c) { c.push_back(8); }, {5, 6, 7, 8});
        check("emplace_back", [](CowVector<int>& c) { c.emplace_back(8); }, {5, 6, 7, 8});
        check("erase", [](CowVector<int>& c) { c.erase(c.begin() + 1); }, {5, 7});
        // An iterator taken from the shared buffer still names the same place after detaching.
        check("erase const it", [](CowVector<int>& c) { c.erase(std::as_const(c).begin()); }, {6, 7});
        check("insert", [](CowVector<int>& c) { c.insert(std::as_const(c).begin() + 1, 9); }, {5, 9, 6, 7});
        check("resize", [](CowVector<int>& c) { c.resize(1); }, {5});
        check("clear", [](CowVector<int>& c) { c.clear(); }, {});
        check("assign", [](CowVector<int>& c) { c.assign(2, 1); }, {1, 1});
        check("begin", [](CowVector<int>& c) { *c.begin() = 1; }, {1, 6, 7});
        check("at", [](CowVector<int>& c) { c.at(2) = 1; }, {5, 6, 1});
        check("back", [](CowVector<int>& c) { c.back() = 1; }, {5, 6, 1});
        check("edit", [](CowVector<int>& c) { c.edit().pop_back(); }, {5, 6});
        check("vector", [](CowVector<int>& c) { c = std::vector<int>{3}; }, {3});
    }

    void constReadsNeverDetach() {
        CowVector<int> a{1, 2, 3};
        const CowVector<int> b = a;
        const CowVector<int>& ca = a;
        int sum = 0;
        for (int v : ca) sum += v;
        sum += ca[0] + ca.at(1) + ca.front() + ca.back() + static_cast<int>(ca.size());
        const std::vector<int>& asVector = ca;   // the conversion reads the shared buffer
        sum += asVector[2];
        QCOMPARE(sum, 1 + 2 + 3 + 1 + 2 + 1 + 3 + 3 + 3);
        QCOMPARE(asVector.data(), b.data());
        QVERIFY(a.shares_with(b));
        QVERIFY(ca == b && b == ca);   // comparing does not detach either
        QVERIFY(a.shares_with(b));
    }

    void equalityComparesElements() {
        const CowVector<int> a{1, 2}, b{1, 2}, c{2, 1}, empty1, empty2;
        QVERIFY(!a.shares_with(b));
        QVERIFY(a == b);
        QVERIFY(!(a == c));
        QVERIFY(empty1 == empty2);
        QVERIFY(empty1.empty() && empty1.begin() == empty1.end());
        QVERIFY(a == (std::vector<int>{1, 2}));
        QVERIFY(!(empty1 == a));
    }

    void copiedProjectSharesTheCluster() {
        const Project p = nodesOf(64, 8);
        Project q = p;
        QVERIFY(q.cluster.nodes.shares_with(p.cluster.nodes));
        QVERIFY(q == p);
        q.layout.tp = 4;   // a layout edit leaves the nodes shared
        QVERIFY(q.cluster.nodes.shares_with(p.cluster.nodes));
        q.cluster.nodes[3].gpus = 4;   // a node edit gives q its own nodes
        QVERIFY(!q.cluster.nodes.shares_with(p.cluster.nodes));
        QCOMPARE(p.cluster.nodes[3].gpus, 8);
        QCOMPARE(p.world_size(), 64 * 8);
        QCOMPARE(q.world_size(), 64 * 8 - 4);
    }

    void fixOnACopyLeavesTheOriginal() {
        // Node 2 has 4 GPUs, the others 8: cluster.uniform_gpus fires and its fix (8 GPUs on
        // node 2, a /cluster/ field) is tried on copies of the project by the fix search.
        Project p = nodesOf(4, 8);
        p.cluster.nodes[2].gpus = 4;
        const Project before = p;
        Fix found;
        for (const auto& d : validate(p))
            if (d.rule == "cluster.uniform_gpus" && !d.fixes.empty()) found = d.fixes.front();
        QVERIFY(!found.changes.empty());
        QCOMPARE(p.cluster.nodes[2].gpus, 4);   // trying the fix did not change the project
        QVERIFY(p == before);
        Project fixed = p;
        apply_fix(fixed, found);
        QCOMPARE(fixed.cluster.nodes[2].gpus, 8);
        QCOMPARE(p.cluster.nodes[2].gpus, 4);
        for (const auto& d : validate(fixed)) QVERIFY2(d.rule != "cluster.uniform_gpus", d.message.c_str());
    }
};

QTEST_APPLESS_MAIN(TestCowVector)
#include "tst_cow_vector.moc"

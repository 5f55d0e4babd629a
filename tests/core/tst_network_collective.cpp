// Collectives priced as NCCL's tuning model prices them: nccl-tests' busbw definitions on
// hand-computed cases, NCCL's algorithm pick, the tier that bounds each case, per-NIC all-to-all.
#include "network/byte_sizes.h"
#include "network/collective.h"
#include "network/nccl_chunking.h"
#include "network/nccl_tuning.h"
#include "network/systems.h"
#include "util/input_error.h"

#include <QtTest>

using namespace paraplan;
using namespace paraplan::network;

namespace {

constexpr std::uint64_t kGiB = 1ull << 30;

CollectiveResult run(const char* system, int gpus, Op op, std::uint64_t bytes, Algorithm a = Algorithm::Auto) {
    return price(fabric_for(*find_system(system), gpus), op, bytes, a);
}

}   // namespace

class TestNetworkCollective : public QObject {
    Q_OBJECT
private slots:
    // nccl-tests doc/PERFORMANCE.md: busbw = algbw * 2(n-1)/n, (n-1)/n, 1.
    void busbwFactors() {
        QCOMPARE(busbw_factor(Op::AllReduce, 8), 1.75);
        QCOMPARE(busbw_factor(Op::AllGather, 8), 0.875);
        QCOMPARE(busbw_factor(Op::ReduceScatter, 4), 0.75);
        QCOMPARE(busbw_factor(Op::AllToAll, 16), 15.0 / 16.0);
        QCOMPARE(busbw_factor(Op::Broadcast, 8), 1.0);
        QCOMPARE(busbw_factor(Op::SendRecv, 8), 1.0);
    }

    // DGX A100, 8 GPUs, 8 GiB all-reduce: ring/Simple. By hand: 12 channels of NCCL's 20 GB/s
    // (SM80_NVLINK_BW) = 240 GB/s bus, algorithm bandwidth 240 * 8/14; latency 8.4 (baseLat) +
    // 14 steps * 3.4 (hwLat NVLink ring Simple) = 56 us. Chunking: a loop is 12 channels x 8 ranks
    // x 2 MiB = 192 MiB, so 8 GiB runs 43 loops of 14 steps where 42 2/3 full ones would do: 14/3
    // steps more.
    void a100RingByHand() {
        const auto r = run("dgx-a100", 8, Op::AllReduce, 8 * kGiB);
        QCOMPARE(algorithm_name(r.algorithm), "ring");
        QCOMPARE(protocol_name(r.protocol), "Simple");
        const double t_us = 56.0 + 8.0 * kGiB / (1000 * 240.0 * 8 / 14) + 14.0 / 3 * nccl::kSimpleStepOverheadUs;
        QVERIFY(std::abs(r.time_s - t_us * 1e-6) < 1e-9);
        QVERIFY(std::abs(r.algbw_gbs - 8.0 * kGiB / (t_us * 1e3)) < 1e-6);
        QVERIFY(std::abs(r.busbw_gbs - r.algbw_gbs * 1.75) < 1e-9);
        QCOMPARE(r.bound_tier, std::string("nvlink"));
    }

    // The steps calcCollChunking's loops run, by hand. Ring all-reduce of 32 MiB on 8 A100s: one
    // loop (192 MiB) of 14 steps, 14 * 32/192 at full chunks. NVLS on 8 H100s, 16 channels x 8 heads
    // = 128 chunks a loop: 8 MiB is under 64 x 128 x 128 KiB and 8 x 128 x 64 KiB, not under
    // 2 x 128 x 32 KiB, so 32 KiB chunks, 2 loops; at 128 KiB it would be half a loop. 1 GiB runs
    // full 128 KiB chunks: no steps added. LL adds none.
    void chunkStepsByHand() {
        const auto a100 = fabric_for(*find_system("dgx-a100"), 8);
        const auto ring = nccl::simple_chunk_steps(a100, Op::AllReduce, Algorithm::Ring, Protocol::Simple, 32ull << 20);
        QCOMPARE(ring.steps, 14.0);
        QVERIFY(std::abs(ring.steps_full_chunk - 14.0 * 32 / 192) < 1e-12);
        const auto h100 = fabric_for(*find_system("dgx-h100"), 8);
        const auto nvls = nccl::simple_chunk_steps(h100, Op::AllReduce, Algorithm::Nvls, Protocol::Simple, 8ull << 20);
        QCOMPARE(nvls.steps, 2.0);
        QCOMPARE(nvls.steps_full_chunk, 0.5);
        QCOMPARE(nccl::chunking_overhead_us(h100, Op::AllReduce, Algorithm::Nvls, Protocol::Simple, 8ull << 20),
                 1.5 * nccl::kSimpleStepOverheadUs);
        QCOMPARE(nccl::chunking_overhead_us(h100, Op::AllReduce, Algorithm::Nvls, Protocol::Simple, kGiB), 0.0);
        QCOMPARE(nccl::chunking_overhead_us(a100, Op::AllReduce, Algorithm::Ring, Protocol::LL, 1ull << 20), 0.0);
        // price() is NCCL's estimate for NCCL's pick plus the steps the chunking adds.
        const std::uint64_t mid = 64ull << 20;
        const auto r = run("dgx-h100", 8, Op::AllReduce, mid);
        QCOMPARE(algorithm_name(r.algorithm), "nvls");
        const double t_us = nccl::algo_time_us(h100, Op::AllReduce, Algorithm::Nvls, Protocol::Simple, mid) +
                            nccl::chunking_overhead_us(h100, Op::AllReduce, Algorithm::Nvls, Protocol::Simple, mid);
        QVERIFY(nccl::chunking_overhead_us(h100, Op::AllReduce, Algorithm::Nvls, Protocol::Simple, mid) > 0);
        QVERIFY(std::abs(r.time_s - t_us * 1e-6) < 1e-12);
    }

    // 8-GPU H100: NCCL picks NVLS for large all-reduces (16 NVLS channels of 20.6 GB/s, 5/6 to
    // algorithm bandwidth), and LL on a ring for tiny ones.
    void h100PicksNvlsAtLargeSizes() {
        const auto big = run("dgx-h100", 8, Op::AllReduce, kGiB);
        QCOMPARE(algorithm_name(big.algorithm), "nvls");
        QVERIFY(big.busbw_gbs > 450 && big.busbw_gbs < 490);
        const auto ring = run("dgx-h100", 8, Op::AllReduce, kGiB, Algorithm::Ring);
        QVERIFY(ring.busbw_gbs > 350 && ring.busbw_gbs < 375);
        const auto tiny = run("dgx-h100", 8, Op::AllReduce, 32 * 1024);
        QCOMPARE(protocol_name(tiny.protocol), "LL");
        QVERIFY(tiny.latency_bound);
        QVERIFY_THROWS_EXCEPTION(InputError, run("dgx-a100", 8, Op::AllReduce, kGiB, Algorithm::Nvls));
    }

    // A 72-GPU all-reduce on one NVL72 rack stays on NVLink: one domain, bounded by NVLink,
    // several times what the rack's NICs (one 400 Gb/s per GPU) could carry.
    void nvl72BoundByNvlink() {
        const auto f = fabric_for(*find_system("gb200-nvl72"), 72);
        QCOMPARE(f.nodes, 1);
        const auto r = price(f, Op::AllReduce, 8 * kGiB);
        QCOMPARE(r.bound_tier, std::string("nvlink"));
        QVERIFY(r.busbw_gbs > 4 * 50.0);
        const auto two_racks = fabric_for(*find_system("gb200-nvl72"), 144);
        QCOMPARE(two_racks.nodes, 2);
        QCOMPARE(algorithm_name(price(two_racks, Op::AllReduce, 8 * kGiB).algorithm), "nvls_tree");
    }

    // All-to-all across two DGX H100: each GPU sends half its buffer to the other node through its
    // own 400 Gb/s NIC, so algbw <= 2 * 50 GB/s, not the node's eight NICs together.
    void allToAllPerNic() {
        const auto r = run("dgx-h100", 16, Op::AllToAll, kGiB);
        QCOMPARE(r.bound_tier, std::string("infiniband"));
        QVERIFY(r.algbw_gbs <= 2 * 50.0);
        QVERIFY(r.algbw_gbs > 2 * 50.0 * 0.8);
        QVERIFY(std::abs(r.busbw_gbs - r.algbw_gbs * 15 / 16) < 1e-9);
        const auto inside = run("dgx-h100", 8, Op::AllToAll, kGiB);
        QCOMPARE(inside.bound_tier, std::string("nvlink"));
        QVERIFY(inside.algbw_gbs > 4 * r.algbw_gbs);
    }

    // 32 GPUs exchanging expert tokens: inside one NVL72 rack over NVLink, on four DGX B200 over
    // one 400 Gb/s NIC per GPU; the same GPUs, several times apart.
    void allToAllInsideNvl72() {
        const auto rack = run("gb200-nvl72", 32, Op::AllToAll, kGiB);
        const auto nodes = run("dgx-b200", 32, Op::AllToAll, kGiB);
        QCOMPARE(rack.bound_tier, std::string("nvlink"));
        QCOMPARE(nodes.bound_tier, std::string("infiniband"));
        QVERIFY(rack.algbw_gbs > 8 * nodes.algbw_gbs);
    }

    void broadcastAndSendRecv() {
        const auto b = run("dgx-h100", 8, Op::Broadcast, kGiB);
        QCOMPARE(algorithm_name(b.algorithm), "ring");
        QCOMPARE(b.busbw_gbs, b.algbw_gbs);
        const auto s = run("dgx-h100", 16, Op::SendRecv, kGiB);
        QCOMPARE(s.busbw_gbs, s.algbw_gbs);
        QCOMPARE(s.bound_tier, std::string("infiniband"));
    }

    // Across two domains, all-reduce runs NVLS-tree on NVLS systems (NVLS alone needs CollNet).
    void multiNodeAlgorithms() {
        const auto r = run("dgx-h100", 16, Op::AllReduce, kGiB);
        QCOMPARE(algorithm_name(r.algorithm), "nvls_tree");
        const auto a100 = run("dgx-a100", 32, Op::AllReduce, kGiB);
        QVERIFY(a100.algorithm == Algorithm::Ring || a100.algorithm == Algorithm::Tree);
        QCOMPARE(a100.bound_tier, std::string("infiniband"));
    }

    void byteLists() {
        const auto v = parse_byte_list("8,1K,1M,2G");
        QCOMPARE(v.size(), std::size_t(4));
        QCOMPARE(v[1], std::uint64_t(1024));
        QCOMPARE(v[2], std::uint64_t(1048576));
        QCOMPARE(v[3], std::uint64_t(2) << 30);
        QVERIFY_THROWS_EXCEPTION(InputError, parse_byte_list("1X"));
        QVERIFY_THROWS_EXCEPTION(InputError, parse_byte_list(""));
        QVERIFY_THROWS_EXCEPTION(InputError, parse_byte_list("0"));
    }
};

QTEST_APPLESS_MAIN(TestNetworkCollective)
#include "tst_network_collective.moc"

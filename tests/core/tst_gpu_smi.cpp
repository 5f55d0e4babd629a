// GPU telemetry parsing against recorded outputs: nvidia-smi's csv lines (tests/data/nvidia-smi)
// and rocm-smi's JSON (tests/data/rocm-smi). Qt-free code, so these also run under the asan preset.
#include "telemetry/nvidia_smi.h"
#include "telemetry/rocm_smi.h"

#include <nlohmann/json.hpp>

#include <QFile>
#include <QtTest>

using namespace paraplan::runtime;

namespace {
// The lines of tests/data/nvidia-smi/<name>.
QList<QByteArray> lines_of(const char* name) {
    QFile f(QString(PARAPLAN_TEST_DATA) + "/nvidia-smi/" + name);
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", name);
    return f.readAll().split('\n');
}
std::string reading() {
    QFile f(QString(PARAPLAN_TEST_DATA) + "/rocm-smi/mi300x-2gpu.json");
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read the rocm-smi reading");
    return f.readAll().toStdString();
}
nlohmann::json card(int i) { return nlohmann::json::parse(reading()).at("card" + std::to_string(i)); }
double bytes(const nlohmann::json& c, const char* key) { return std::stod(c.at(key).get<std::string>()); }
}   // namespace

class TestGpuSmi : public QObject {
    Q_OBJECT
private slots:
    void h100Line() {
        const auto r = parse_nvidia_smi_line(
            "3, GPU-5f6e7d8c-9b0a-4b2c-8d4e-6f7a8b9c0d1e, NVIDIA H100 80GB HBM3, 95, 71228, 81559, 60, 587.90");
        QVERIFY(r.error.empty());
        QVERIFY(r.sample);
        QCOMPARE(r.sample->index, 3);
        QCOMPARE(r.sample->uuid, std::string("GPU-5f6e7d8c-9b0a-4b2c-8d4e-6f7a8b9c0d1e"));
        QCOMPARE(r.sample->name, std::string("NVIDIA H100 80GB HBM3"));
        QCOMPARE(*r.sample->utilization_gpu, 95.0);
        QCOMPARE(*r.sample->memory_used_mib, 71228.0);
        QCOMPARE(*r.sample->memory_total_mib, 81559.0);
        QCOMPARE(*r.sample->temperature_gpu, 60.0);
        QCOMPARE(*r.sample->power_draw_w, 587.90);
    }

    void realH200Recording() {
        // Real output of an H200 under a bf16 matmul loop (scripts/gpu-check.sh, driver 580.159.04).
        int parsed = 0;
        for (const auto& line : lines_of("h200-real-busy.csv")) {
            if (line.trimmed().isEmpty()) continue;
            const auto r = parse_nvidia_smi_line(line.toStdString());
            QVERIFY2(r.sample, r.error.c_str());
            QCOMPARE(r.sample->index, 0);
            QCOMPARE(r.sample->name, std::string("NVIDIA H200"));
            QCOMPARE(r.sample->uuid, std::string("GPU-3d6647ff-53d0-4bfa-f3d5-9e876e093b50"));
            QCOMPARE(*r.sample->memory_total_mib, 143771.0);
            QVERIFY(*r.sample->utilization_gpu >= 90 && *r.sample->utilization_gpu <= 100);
            QVERIFY(*r.sample->power_draw_w > 400);
            ++parsed;
        }
        QVERIFY(parsed >= 10);
        const auto idle = parse_nvidia_smi_line(lines_of("h200-real-idle.csv").at(0).toStdString());
        QVERIFY(idle.sample);
        QCOMPARE(*idle.sample->utilization_gpu, 0.0);
        QCOMPARE(*idle.sample->memory_used_mib, 0.0);
    }

    void naFieldsAreUnknownNotZero() {
        const auto l = lines_of("a100-na.csv");
        auto r = parse_nvidia_smi_line(l[1].toStdString());
        QVERIFY(r.sample);
        QVERIFY(!r.sample->utilization_gpu);
        QVERIFY(!r.sample->power_draw_w);
        QCOMPARE(*r.sample->memory_used_mib, 45120.0);
        r = parse_nvidia_smi_line(l[2].toStdString());
        QVERIFY(r.sample);
        QCOMPARE(*r.sample->utilization_gpu, 12.0);
        QVERIFY(!r.sample->temperature_gpu);
        QVERIFY(!r.sample->power_draw_w);   // [Not Supported]
        QCOMPARE(r.sample->name, std::string("NVIDIA A100-PCIE-40GB"));
    }

    void streamingCommand() {
        const auto a = nvidia_smi_argv(100);
        QCOMPARE(a.back(), std::string("250"));   // floor
        QCOMPARE(a[1], std::string("--query-gpu=index,uuid,name,utilization.gpu,memory.used,memory.total,"
                                   "temperature.gpu,power.draw"));
        QCOMPARE(a[2], std::string("--format=csv,noheader,nounits"));
    }

    void parsesEveryCard() {
        const RocmSmiParse r = parse_rocm_smi_json(reading());
        QVERIFY(r.errors.empty());
        QCOMPARE(int(r.samples.size()), 2);   // "system" is not a card
        const GpuSample& g0 = r.samples[0];
        QCOMPARE(g0.index, 0);
        QCOMPARE(g0.name, std::string("AMD Instinct MI300X OAM"));
        QCOMPARE(g0.uuid, card(0).at("Unique ID").get<std::string>());
        QCOMPARE(*g0.utilization_gpu, std::stod(card(0).at("GPU use (%)").get<std::string>()));
        QCOMPARE(*g0.memory_used_mib, bytes(card(0), "VRAM Total Used Memory (B)") / (1024.0 * 1024.0));
        QCOMPARE(*g0.memory_total_mib, bytes(card(0), "VRAM Total Memory (B)") / (1024.0 * 1024.0));
        // Edge temperature is "N/A" on MI300X: the junction sensor is read instead.
        QCOMPARE(*g0.temperature_gpu, std::stod(card(0).at("Temperature (Sensor junction) (C)").get<std::string>()));
        QCOMPARE(*g0.power_draw_w,
                 std::stod(card(0).at("Current Socket Graphics Package Power (W)").get<std::string>()));
        // Card 1: utilization and power "N/A" are unknown, not zero; its memory is read.
        const GpuSample& g1 = r.samples[1];
        QCOMPARE(g1.index, 1);
        QVERIFY(!g1.utilization_gpu);
        QVERIFY(!g1.power_draw_w);
        QVERIFY(g1.memory_used_mib && *g1.memory_used_mib > 0);
    }

    void badOutputIsANoteNeverACrash() {
        QVERIFY(!parse_rocm_smi_json("ERROR: GPU[0] : Unable to read").errors.empty());
        QVERIFY(!parse_rocm_smi_json("[1, 2]").errors.empty());
        QVERIFY(!parse_rocm_smi_json("{}").errors.empty());   // no GPU reported
        const RocmSmiParse odd = parse_rocm_smi_json(R"j({"cardX": {}, "card3": {"GPU use (%)": "12"}})j");
        QCOMPARE(int(odd.samples.size()), 1);
        QCOMPARE(odd.samples[0].index, 3);
        QCOMPARE(*odd.samples[0].utilization_gpu, 12.0);
        QVERIFY(!odd.samples[0].memory_used_mib);
        QCOMPARE(int(odd.errors.size()), 1);
        // A number beyond double's range is a note, not an exception (found by fuzz_telemetry).
        QVERIFY(!parse_rocm_smi_json(R"j({"card0": {"GPU use (%)": 1e999}})j").errors.empty());
    }
};

QTEST_GUILESS_MAIN(TestGpuSmi)
#include "tst_gpu_smi.moc"

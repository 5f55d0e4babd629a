#pragma once
// Test helper: a small training-script stand-in (python3) for the launcher modes. It
// prints one line with what the launcher gave it, then runs --steps N steps of 0.2 s
// (0: until stopped), printing "step RANK i".
#include <QFile>
#include <QString>

inline QString write_train_stub(const QString& dir) {
    const QString path = dir + "/train_stub.py";
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(R"(import os, sys, time
env = os.environ
print("rank %s local %s world %s master %s:%s host %s args %s" % (
    env.get("RANK"), env.get("LOCAL_RANK"), env.get("WORLD_SIZE"), env.get("MASTER_ADDR"),
    env.get("MASTER_PORT"), env.get("COLOSSALAI_STUB_HOST", "-"), " ".join(sys.argv[1:])), flush=True)
steps = int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else 1
i = 0
while steps == 0 or i < steps:
    print("step %s %d" % (env.get("RANK"), i), flush=True)
    time.sleep(0.2)
    i += 1
)");
    return path;
}

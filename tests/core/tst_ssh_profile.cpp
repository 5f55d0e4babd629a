// The user's local ssh settings (core/ssh/ssh_profile.h): what a profile may hold, where it is
// kept (0600 in a 0700 folder of Paraplan's), refusing a file another user could have written,
// and how a launch picks one.
#include "ssh/ssh_profile.h"
#include "util/input_error.h"
#include "util/local_dirs.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace paraplan;
using namespace paraplan::runtime;
using nlohmann::json;

class TestSshProfile : public QObject {
    Q_OBJECT
private slots:
    // Paths that reach ssh: absolute, and nothing a shell or ssh's %-tokens would read.
    void pathsThatMayReachSsh() {
        for (const char* ok : {"/home/me/.ssh/id_ed25519", "/k/id-rsa+cert@lab,1.pub"})
            QVERIFY2(local_ssh_path_problem(ok).empty(), ok);
        for (const char* bad : {"id_rsa", "~/.ssh/id", "/a b", "/a$(id)", "/a`id`", "/a;b", "/a%d", "/a'b", "/a\"b",
                                "/a\\b", "/a\nb", "/a|b", "/a&b", "/a*b"})
            QVERIFY2(!local_ssh_path_problem(bad).empty(), bad);
    }

    void documentRoundTripsAndRefusesWithPointers() {
        const json doc = json::parse(R"({"paraplan_ssh_profiles": 1, "profiles": {
            "default": {"identity_file": "/k/id", "known_hosts_file": "/k/kh", "strict_host_key_checking": "accept-new"},
            "lab": {"config_file": "/k/cfg", "certificate_file": "/k/id-cert.pub"}}})");
        const auto p = ssh_profiles_from_json(doc);
        QCOMPARE(p.size(), std::size_t(2));
        QCOMPARE(p.at("default").id, std::string("default"));
        QCOMPARE(p.at("default").strict_host_key_checking, std::string("accept-new"));
        QCOMPARE(p.at("lab").strict_host_key_checking, std::string("yes"));
        QCOMPARE(ssh_profiles_from_json(to_json(p)), p);
        auto pointer = [](const char* text) {
            try {
                ssh_profiles_from_json(json::parse(text));
            } catch (const InputError& e) {
                return e.pointer();
            }
            return std::string("(none)");
        };
        QCOMPARE(pointer(R"({"profiles": {"a b": {}}})"), std::string("/profiles/a b"));
        QCOMPARE(pointer(R"({"profiles": {"x": {"identity_file": "/a b"}}})"),
                 std::string("/profiles/x/identity_file"));
        QCOMPARE(pointer(R"({"profiles": {"x": {"strict_host_key_checking": "no"}}})"),
                 std::string("/profiles/x/strict_host_key_checking"));
        QCOMPARE(pointer(R"({"profiles": {"x": {"proxy_command": "id"}}})"), std::string("/profiles/x/proxy_command"));
    }

    void savedPrivateAndReadOnlyWhenOwn() {
        QTemporaryDir tmp;
        const std::string file = (tmp.path() + "/cfg/paraplan/ssh-profiles.json").toStdString();
        QVERIFY(load_ssh_profiles(file).empty());   // none yet
        SshProfile p;
        p.id = "default";
        p.identity_file = "/k/id";
        save_ssh_profiles({{"default", p}}, file);
        struct stat st {};
        QCOMPARE(::stat(file.c_str(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u);
        QCOMPARE(::stat((tmp.path() + "/cfg/paraplan").toLocal8Bit().constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0700u);
        QCOMPARE(load_ssh_profiles(file).at("default").identity_file, std::string("/k/id"));
        // Writable by others: someone else could have chosen these paths; refused, naming the file.
        QCOMPARE(::chmod(file.c_str(), 0666), 0);
        try {
            load_ssh_profiles(file);
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(e.file(), file);
            QVERIFY2(e.message().find("can be written by other users") != std::string::npos, e.what());
        }
        // A FIFO in its place never blocks the reader.
        QCOMPARE(::unlink(file.c_str()), 0);
        QCOMPARE(::mkfifo(file.c_str(), 0600), 0);
        QVERIFY_THROWS_EXCEPTION(InputError, load_ssh_profiles(file));
    }

    void aLaunchPicksTheNamedOrTheDefaultProfile() {
        SshProfile d;
        d.id = "default";
        d.identity_file = "/k/d";
        SshProfile lab;
        lab.id = "lab";
        lab.identity_file = "/k/lab";
        const SshProfiles both{{"default", d}, {"lab", lab}};
        QCOMPARE(resolve_ssh_profile("", both)->identity_file, std::string("/k/d"));
        QCOMPARE(resolve_ssh_profile("lab", both)->identity_file, std::string("/k/lab"));
        QVERIFY(!resolve_ssh_profile("", {{"lab", lab}}));   // no default: ssh's own settings
        QVERIFY_THROWS_EXCEPTION(InputError, resolve_ssh_profile("gone", both));
        SshOptions o;
        apply_ssh_profile(o, lab);
        QCOMPARE(o.profile, std::string("lab"));
        const auto argv = ssh_command_argv({"gpu-a", "", 0}, o, "true");
        QVERIFY(std::find(argv.begin(), argv.end(), "/k/lab") != argv.end());
    }

    void xdgFoldersFollowTheEnvironment() {
        qputenv("XDG_STATE_HOME", "/srv/state");
        qputenv("XDG_CONFIG_HOME", "relative/ignored");   // the specification: a relative value is invalid
        qputenv("HOME", "/home/someone");
        QCOMPARE(jobs_dir(), std::string("/srv/state/paraplan/jobs"));
        QCOMPARE(config_dir(), std::string("/home/someone/.config/paraplan"));
    }
};

QTEST_GUILESS_MAIN(TestSshProfile)
#include "tst_ssh_profile.moc"

// Tools > SSH Profiles, as a user drives it from the main window: the dialog opens from the menu,
// fields are typed, Save writes the user's own profiles file (the one paraplan-cli ssh-profile
// edits, 0600 in a 0700 folder), a path ssh would hand to a shell is refused with the reason,
// and a project that names the profile launches with its values (core/ssh/ssh_profile.h).
#include "guitest.h"
#include "launch/launch_settings.h"
#include "sshprofilesdialog.h"
#include "util/input_error.h"
#include "util/local_dirs.h"

#include <QAction>
#include <QComboBox>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QTimer>
#include <QtTest>

#include <sys/stat.h>

using namespace paraplan;

class TestSshProfiles : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    static QPushButton* saveButton(QDialog* d) {
        for (auto* b : d->findChildren<QPushButton*>())
            if (b->text().remove(QLatin1Char('&')) == QLatin1String("Save")) return b;
        return nullptr;
    }

private slots:
    void initTestCase() { isolateSettings(tmp_); }

    void editFromTheMenuAndLaunchWithIt() {
        MainWindow w(nullptr, tmp_.filePath(QStringLiteral("rec")));
        w.setProject(load_example("llama3.1-70b-4nodes"), QString());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* action = w.findChild<QAction*>(QStringLiteral("sshProfilesAction"));
        QVERIFY(action);
        const QString key = tmp_.filePath(QStringLiteral("id_ed25519"));
        bool typed = false;
        QString refused;
        QTimer::singleShot(0, &w, [&] {
            auto* d = qobject_cast<SshProfilesDialog*>(QApplication::activeModalWidget());
            QVERIFY(d);
            QCOMPARE(d->profileCombo()->currentText(), QStringLiteral("default"));   // offered when there is none
            // A path with a space is refused, not saved.
            d->field("identity_file")->setFocus();
            QTest::keyClicks(d->field("identity_file"), QStringLiteral("/tmp/my key"));
            QTest::mouseClick(saveButton(d), Qt::LeftButton);
            refused = d->problem();
            d->field("identity_file")->clear();
            QTest::keyClicks(d->field("identity_file"), key);
            d->strictCombo()->setCurrentIndex(d->strictCombo()->findData(QStringLiteral("accept-new")));
            QTest::mouseClick(saveButton(d), Qt::LeftButton);
            typed = d->problem().isEmpty();
            d->reject();
        });
        action->trigger();
        QVERIFY2(refused.contains(QStringLiteral("holds the character ' '")), qPrintable(refused));
        QVERIFY(typed);

        // The file the CLI reads, private to the user.
        const std::string file = runtime::ssh_profiles_file();
        QCOMPARE(QString::fromStdString(file), qEnvironmentVariable("XDG_CONFIG_HOME") + "/paraplan/ssh-profiles.json");
        struct stat st {};
        QCOMPARE(::stat(file.c_str(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u);
        const auto profiles = runtime::load_ssh_profiles();
        QCOMPARE(profiles.at("default").identity_file, key.toStdString());
        QCOMPARE(profiles.at("default").strict_host_key_checking, std::string("accept-new"));

        // A project that names no profile launches with "default"; one naming an unknown profile is
        // refused at /runtime/ssh/profile; a project's own identity file is only reported.
        Project p = load_example("llama3.1-70b-4nodes");
        p.cluster.nodes[0].identity = "/tmp/theirs";
        p.runtime = {{"script", "train.py"}};
        const auto ls = runtime::launch_settings(p, profiles);
        QCOMPARE(ls.ssh.identity_file, key.toStdString());
        QCOMPARE(ls.ssh.strict_host_key_checking, std::string("accept-new"));
        QCOMPARE(ls.ignored.size(), std::size_t(1));
        QVERIFY(ls.ignored[0].rfind("/cluster/nodes/0/identity: ignored", 0) == 0);
        p.runtime["ssh"] = {{"profile", "lab"}};
        try {
            runtime::launch_settings(p, profiles);
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(e.pointer(), std::string("/runtime/ssh/profile"));
            QVERIFY(e.message().find("paraplan-cli ssh-profile set lab") != std::string::npos);
        }
    }
};

QTEST_MAIN(TestSshProfiles)
#include "tst_ssh_profiles.moc"

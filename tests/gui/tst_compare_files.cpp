// Compare's "Add file…" as a user clicks it: Qt's file dialog answered, the project file read off
// the GUI thread (ProjectLoad) and added as a column named after the file; a broken file leaves
// the view as it was and says in its hint line where the file is wrong; the button waits while
// a file is being read.
#include "plan/compareview.h"
#include "guitest.h"
#include "journey_input.h"
#include "document/project_load.h"
#include "projectdocument.h"

#include <QPushButton>
#include <QTableWidget>
#include <QtTest>

class TestCompareFiles : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    static bool writeFile(const QString& path, const QByteArray& text) {
        QFile f(path);
        return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    void addFileButton() {
        auto w = exampleWindow(tmp_, "llama3.1-70b-4nodes");
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        QVERIFY(w->document()->waitForAnalysis());
        w->raiseView(QStringLiteral("compare"));
        CompareView* cmp = w->compareView();
        auto* add = cmp->findChild<QPushButton*>(QStringLiteral("compareAddFile"));
        QVERIFY(add);

        paraplan::Project tp4 = w->project();
        tp4.layout.tp = 4;
        tp4.layout.pp = 8;
        const QString good = tmp_.filePath(QStringLiteral("tp4-pp8.paraplan.json"));
        paraplan::save_project(tp4, good.toStdString());
        {
            AnswerFileDialogs answer(good);
            QTest::mouseClick(add, Qt::LeftButton);
            QCOMPARE(answer.titles(), QStringList{QStringLiteral("Add a project to compare")});
        }
        QTRY_COMPARE(cmp->count(), 1);
        QVERIFY(!cmp->fileLoad());
        QVERIFY(add->isEnabled());
        QCOMPARE(cmp->table()->horizontalHeaderItem(0)->text(), QStringLiteral("tp4-pp8.paraplan.json"));

        // A broken file: nothing added, the hint says which file, line and column.
        const QString bad = tmp_.filePath(QStringLiteral("broken.paraplan.json"));
        QVERIFY(writeFile(bad, "{\n  \"paraplan\": 1,\n  \"name\": oops\n}\n"));
        {
            AnswerFileDialogs answer(bad);
            QTest::mouseClick(add, Qt::LeftButton);
        }
        QTRY_VERIFY(!cmp->fileLoad());
        QCOMPARE(cmp->count(), 1);
        QVERIFY2(cmp->hint().startsWith(bad + QStringLiteral(": line 3, column ")), qPrintable(cmp->hint()));

        // While a file is read the button waits, and a second read is refused.
        QVERIFY(cmp->addFileInBackground(good));
        QVERIFY(!add->isEnabled());
        QVERIFY(!cmp->addFileInBackground(good));
        QTRY_COMPARE(cmp->count(), 2);
        QTRY_VERIFY(add->isEnabled());
        QCOMPARE(cmp->table()->horizontalHeaderItem(1)->text(), QStringLiteral("tp4-pp8.paraplan.json (2)"));
    }
};

QTEST_MAIN(TestCompareFiles)
#include "tst_compare_files.moc"

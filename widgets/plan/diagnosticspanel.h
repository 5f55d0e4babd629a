#pragma once
// The findings of the rules for the open project: severity icon, message, the
// framework's own error text, and a Fix button per suggested fix. Selecting a
// finding asks to focus the fields it names.
#include "util/diagnostic.h"

#include <QWidget>

#include <vector>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

class DiagnosticsPanel : public QWidget {
    Q_OBJECT
public:
    explicit DiagnosticsPanel(QWidget* parent = nullptr);

    void setDiagnostics(const std::vector<paraplan::Diagnostic>& ds);
    const std::vector<paraplan::Diagnostic>& diagnostics() const { return ds_; }
    QTreeWidget* tree() const { return tree_; }
    // How many of the listed findings have this severity (the header's counts; the main window's
    // status bar and dock title read them, so every count is of this one list).
    int count(paraplan::Severity s) const;

signals:
    void fieldsActivated(const QStringList& pointers);
    void fixRequested(const paraplan::Fix& fix);

private:
    void onCurrentItemChanged(QTreeWidgetItem* item);
    std::vector<paraplan::Diagnostic> ds_;
    QTreeWidget* tree_;
    QLabel* header_;
};

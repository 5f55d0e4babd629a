#include "plan/diagnosticspanel.h"

#include "common/monospace_font.h"
#include "common/theme.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QStyle>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace {
constexpr int kIndexRole = Qt::UserRole + 1;
}

DiagnosticsPanel::DiagnosticsPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    header_ = new QLabel(this);
    header_->setObjectName(QStringLiteral("diagnosticsHeader"));
    header_->setContentsMargins(8, 4, 8, 4);
    layout->addWidget(header_);
    tree_ = new QTreeWidget(this);
    tree_->setObjectName(QStringLiteral("diagnosticsTree"));
    tree_->setColumnCount(3);
    tree_->setHeaderLabels({tr("Finding"), tr("Rule"), tr("Fix")});
    tree_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    tree_->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    tree_->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    tree_->header()->setStretchLastSection(false);
    tree_->setWordWrap(true);
    tree_->setUniformRowHeights(false);
    tree_->setAlternatingRowColors(true);
    tree_->setToolTip(
        tr("Findings of the framework's rules. Select one to jump to the fields involved; "
           "Fix applies the suggested change as one undoable step."));
    layout->addWidget(tree_);
    connect(tree_, &QTreeWidget::currentItemChanged, this,
            [this](QTreeWidgetItem* cur, QTreeWidgetItem*) { onCurrentItemChanged(cur); });
    connect(tree_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* it, int) { onCurrentItemChanged(it); });
    setDiagnostics({});
}

void DiagnosticsPanel::setDiagnostics(const std::vector<paraplan::Diagnostic>& ds) {
    ds_ = ds;
    // Errors first, then warnings, then notes; the rules' order within each.
    const auto rank = [](paraplan::Severity s) {
        return s == paraplan::Severity::Error ? 0 : s == paraplan::Severity::Warning ? 1 : 2;
    };
    std::stable_sort(ds_.begin(), ds_.end(),
                     [&](const auto& a, const auto& b) { return rank(a.severity) < rank(b.severity); });
    // Item widgets would only be deleted later; remove the old Fix buttons now so
    // that nothing can click a fix of a finding that is gone.
    for (QToolButton* b : tree_->findChildren<QToolButton*>(QStringLiteral("fixButton"))) delete b;
    tree_->clear();
    int errors = 0, warnings = 0, infos = 0;
    QStyle* st = style();
    for (std::size_t i = 0; i < ds_.size(); ++i) {
        const auto& d = ds_[i];
        auto* item = new QTreeWidgetItem(tree_);
        QIcon icon;
        switch (d.severity) {
        case paraplan::Severity::Error:
            icon = st->standardIcon(QStyle::SP_MessageBoxCritical);
            ++errors;
            break;
        case paraplan::Severity::Warning:
            icon = st->standardIcon(QStyle::SP_MessageBoxWarning);
            ++warnings;
            break;
        case paraplan::Severity::Info:
            icon = st->standardIcon(QStyle::SP_MessageBoxInformation);
            ++infos;
            break;
        }
        item->setIcon(0, icon);
        item->setText(0, QString::fromStdString(d.message));
        item->setToolTip(0, QString::fromStdString(d.message));
        item->setText(1, QString::fromStdString(d.rule));
        item->setData(0, kIndexRole, static_cast<int>(i));
        if (!d.framework_error.empty()) {
            auto* fe = new QTreeWidgetItem(item);
            fe->setText(0, tr("Framework says: %1").arg(QString::fromStdString(d.framework_error)));
            fe->setToolTip(0, tr("The error the framework itself raises for this layout."));
            fe->setFont(0, paraplan::widgets::monospaceFont());
            fe->setData(0, kIndexRole, static_cast<int>(i));
        }
        if (!d.fields.empty()) {
            QStringList fs;
            for (const auto& f : d.fields) fs << QString::fromStdString(f);
            auto* fi = new QTreeWidgetItem(item);
            fi->setText(0, tr("Fields: %1").arg(fs.join(QStringLiteral(", "))));
            fi->setData(0, kIndexRole, static_cast<int>(i));
        }
        if (!d.fixes.empty()) {
            auto* btn = new QToolButton(tree_);
            btn->setObjectName(QStringLiteral("fixButton"));
            btn->setText(tr("Fix: %1").arg(QString::fromStdString(d.fixes.front().label)));
            btn->setToolTip(tr("Apply this change as one undoable step."));
            btn->setAutoRaise(true);
            const paraplan::Fix first = d.fixes.front();
            connect(btn, &QToolButton::clicked, this, [this, first] { emit fixRequested(first); });
            if (d.fixes.size() > 1) {
                auto* menu = new QMenu(btn);
                for (const auto& f : d.fixes) {
                    menu->addAction(QString::fromStdString(f.label), this, [this, f] { emit fixRequested(f); });
                }
                btn->setMenu(menu);
                btn->setPopupMode(QToolButton::MenuButtonPopup);
            }
            tree_->setItemWidget(item, 2, btn);
        }
        item->setExpanded(d.severity == paraplan::Severity::Error);
    }
    if (ds_.empty()) {
        auto* ok = new QTreeWidgetItem(tree_);
        ok->setIcon(0, st->standardIcon(QStyle::SP_DialogApplyButton));
        ok->setText(0, tr("No findings: the framework accepts this layout."));
        ok->setFlags(Qt::ItemIsEnabled);
    }
    const QPalette pal = palette();
    const auto count = [](int n, const QString& one, const QString& many) { return n == 1 ? one : many.arg(n); };
    // Only a count that is not zero is coloured: a red "0 errors" read as an alarm.
    const auto coloured = [](int n, const QColor& c, const QString& text, bool bold) {
        if (n == 0) return text;
        const QString span = QStringLiteral("<span style='color:%1'>%2</span>").arg(c.name(), text);
        return bold ? QStringLiteral("<b>%1</b>").arg(span) : span;
    };
    header_->setText(
        tr("%1 · %2 · %3")
            .arg(coloured(errors, theme::errorColor(pal), count(errors, tr("1 error"), tr("%1 errors")), true),
                 coloured(warnings, theme::warningColor(pal), count(warnings, tr("1 warning"), tr("%1 warnings")),
                          false),
                 count(infos, tr("1 note"), tr("%1 notes"))));
}

int DiagnosticsPanel::count(paraplan::Severity s) const {
    return static_cast<int>(std::count_if(ds_.begin(), ds_.end(), [s](const auto& d) { return d.severity == s; }));
}

void DiagnosticsPanel::onCurrentItemChanged(QTreeWidgetItem* item) {
    if (!item) return;
    const QVariant v = item->data(0, kIndexRole);
    if (!v.isValid()) return;
    const auto& d = ds_.at(static_cast<std::size_t>(v.toInt()));
    QStringList fs;
    for (const auto& f : d.fields) fs << QString::fromStdString(f);
    if (!fs.isEmpty()) emit fieldsActivated(fs);
}

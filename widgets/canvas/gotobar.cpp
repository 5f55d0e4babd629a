#include "canvas/gotobar.h"

#include "common/theme.h"

#include <QAbstractScrollArea>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

GoToBar::GoToBar(QWidget* parent) : QFrame(parent) {
    setObjectName(QStringLiteral("goToBar"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(6, 6, 6, 6);
    lay->setSpacing(3);
    field_ = new QLineEdit(this);
    field_->setObjectName(QStringLiteral("goToField"));
    field_->setPlaceholderText(tr("Go to rank (e.g. 1234) or node name"));
    field_->setClearButtonEnabled(true);
    field_->setMinimumWidth(240);
    lay->addWidget(field_);
    error_ = new QLabel(this);
    error_->setObjectName(QStringLiteral("goToError"));
    error_->setWordWrap(true);
    error_->hide();
    lay->addWidget(error_);
    connect(field_, &QLineEdit::returnPressed, this, [this] { emit submitted(field_->text()); });
    connect(field_, &QLineEdit::textEdited, this, [this] {
        error_->clear();
        error_->hide();
        adjustSize();
    });
    hide();
}

QString GoToBar::error() const { return error_->isVisible() ? errorText_ : QString(); }

void GoToBar::place() {
    QWidget* p = parentWidget();
    if (!p) return;
    adjustSize();
    QRect area = p->rect();
    if (auto* sa = qobject_cast<QAbstractScrollArea*>(p)) area = sa->viewport()->geometry();
    move(area.right() - width() - 8 + 1, area.top() + 8);
}

void GoToBar::open() {
    error_->hide();
    show();
    place();
    raise();
    field_->setFocus(Qt::ShortcutFocusReason);
    field_->selectAll();
}

void GoToBar::showError(const QString& why) {
    errorText_ = why;
    error_->setText(QStringLiteral("<span style='color:%1'>%2</span>")
                        .arg(theme::errorColor(palette()).name(), why.toHtmlEscaped()));
    error_->show();
    show();
    place();
}

void GoToBar::keyPressEvent(QKeyEvent* e) {
    if (e->key() == Qt::Key_Escape) {
        hide();
        if (parentWidget()) parentWidget()->setFocus();
        return;
    }
    QFrame::keyPressEvent(e);
}

#pragma once
// "Go to rank N / node X": a small field over the canvas's upper right corner, opened by
// Edit > Go To (Ctrl+G). Enter hands the text to the canvas; a text it cannot find stays
// in the field with the reason under it; Escape closes it.
#include <QFrame>

class QLabel;
class QLineEdit;

class GoToBar : public QFrame {
    Q_OBJECT
public:
    explicit GoToBar(QWidget* parent);
    QLineEdit* field() const { return field_; }
    QString error() const;                // the reason shown under the field (empty: none)
    void open();                          // show, place, focus, select the text
    void showError(const QString& why);   // stays open
    void place();                         // the parent's upper right corner

signals:
    void submitted(const QString& text);

protected:
    void keyPressEvent(QKeyEvent* e) override;

private:
    QLineEdit* field_;
    QLabel* error_;
    QString errorText_;
};

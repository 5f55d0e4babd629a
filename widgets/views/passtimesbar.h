#pragma once
// The timeline's pass-times row: which durations the pipeline timeline draws the forward (F),
// input-gradient (B) and weight-gradient (W) passes with (core/estimate/pass_times.h), as
// "Pass times: [Equal (paper) | Estimate's | Custom]  F [ ]  B [ ]  W [ ]". The spin boxes show the
// values drawn; editing one switches to Custom. It only edits the choice: core resolves it.
#include "estimate/pass_times.h"

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;

class PassTimesBar : public QWidget {
    Q_OBJECT
public:
    explicit PassTimesBar(QWidget* parent = nullptr);

    const paraplan::estimate::PassTimesChoice& choice() const { return choice_; }
    // Sets the choice without choiceChanged (a lesson step, a restored view).
    void setChoice(const paraplan::estimate::PassTimesChoice& c);
    // Shows the pass times the timeline is drawn with, and why when the choice could not be followed.
    void showDrawn(const paraplan::estimate::ResolvedPassTimes& r);

    QComboBox* mode() const { return mode_; }
    QDoubleSpinBox* forward() const { return spins_[0]; }
    QDoubleSpinBox* backwardInput() const { return spins_[1]; }
    QDoubleSpinBox* backwardWeight() const { return spins_[2]; }

signals:
    void choiceChanged(const paraplan::estimate::PassTimesChoice& c);

private:
    paraplan::estimate::PassTimes spinValues() const;
    void showValues(const paraplan::estimate::PassTimes& t);
    paraplan::estimate::PassTimesChoice choice_;
    QComboBox* mode_;
    QDoubleSpinBox* spins_[3];
    QLabel* note_;
};

#pragma once
// A lesson step's one question, its choices and how it is graded. Three kinds:
//   trend     what one figure does under the step's change (up, down, the same), graded on
//             the figure the estimate gives before and after the change;
//   group     which GPUs share a rank's group of one kind after the change, graded on the
//             framework's rank map (topology/build_rank_map.h);
//   accepted  whether the framework starts the layout after the change, graded on the
//             validator (rules/): accepted when it finds no error.
// Nothing is graded on what the lesson file says: the file names the question, the project
// answers it.
#include "lessons/lesson.h"
#include "project/project.h"

#include <span>
#include <string>
#include <vector>

namespace paraplan::lessons {

struct Question {
    Ask ask = Ask::Trend;
    std::vector<std::string> choices;
    int answer = -1;         // index into choices; -1 until graded (trend, accepted)
    std::string graded_on;   // what the answer is graded on, in words
};

// The step's question on `before` (the project as the step starts). A group question's choices
// come from the rank map after the change: the true group among at most three other rank sets of
// its size that hold the rank (its groups of other kinds, its group before the change, then the
// block and evenly spaced sets), sorted, so the place of the right one says nothing. Empty choices when the rank
// map after the change has no such group (the step cannot be asked on this project).
Question question(const Step& s, const Project& before);

// `q` graded with the step's outcome (run_step from the same `before`): the index of the right
// choice, -1 when the outcome cannot tell (a trend figure without a value).
int grade(const Step& s, const Question& q, const StepOutcome& o);

// A set of ranks as a question shows it, ascending: "{0, 1, 2, 3}"; past 8 ranks the start and
// end, "{0, 8, 16, …, 248} (32 GPUs, 8 apart)" when evenly spaced.
std::string format_ranks(std::span<const int> ranks);

// What a figure did between two values: increases, decreases or the same (to 1e-9 relative).
Trend measured_trend(double before, double after);

}   // namespace paraplan::lessons

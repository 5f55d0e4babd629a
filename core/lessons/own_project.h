#pragma once
// A lesson on the learner's own project and cluster. The built-in lessons run on fixed examples
// whose figures their text quotes; this one is written for the project in hand: its rank map,
// its framework's rules and its estimate, with each question graded on them (lessons/question.h),
// never on an expectation written in advance.
//
// The steps, each where the project allows it (a change the rank map cannot build is left out):
//   1. the rank grid: which GPUs share a rank's group of the project's widest pipeline or data axis;
//   2. tp doubled (or halved at the cluster's limit), the other axes making room: does the
//      framework still start it? (its validator);
//   3. tp back: what the exposed tensor-parallel time does;
//   4. with pp > 1, twice the microbatches per step: what the bubble's share of the step does;
//   5. with data parallelism, the next ZeRO stage the framework accepts: what peak memory does.
// Every figure the text quotes is a Quote (lesson.h), so the lesson test holds it to the estimate.
#include "lessons/lesson.h"
#include "project/project.h"

namespace paraplan::lessons {

// The lesson's id in lists (the lesson panel's "On your project" entry).
inline constexpr const char* kOwnProjectLessonId = "own-project";

// Throws InputError when the project has no estimate to teach from (the layout does not divide
// the world, or the model does not fit the layout at all).
Lesson lesson_on_project(const Project& p);

}   // namespace paraplan::lessons

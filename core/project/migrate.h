#pragma once
// Project-file versions and the migrations between them, applied to the parsed JSON before the
// typed read (project.cpp): the version a file has is read once here, a file of an earlier
// version is taken step by step to the current one, and a newer one is refused before anything
// else in it is read.
//
// History (git log of core/project/project.cpp and resources/examples): every project file
// Paraplan has written says "paraplan": 1, and the loader has required that key since the first
// commit (ff10993, 2026-11-29). Since then fields were only added (each optional, with the old
// behaviour as its default), never renamed or removed: version 1 is the only format, so the list
// of version steps is empty. Version 1 has one legacy spelling, read by normalize_legacy_forms.
#include <nlohmann/json.hpp>

#include <vector>

namespace paraplan {

// One step: takes the JSON of version `from` to version `from + 1`, in place (pure JSON to
// JSON); `what` says what changed and in which commit.
struct ProjectMigration {
    int from;
    const char* what;
    void (*apply)(nlohmann::json& root);
};

// The steps in order; step i takes version i + 1 to i + 2. Empty while version 1 is the only
// format; kProjectSchemaVersion is 1 + its size.
const std::vector<ProjectMigration>& project_migrations();

// The file's "paraplan" version. Throws InputError at /paraplan when it is missing, not a
// positive integer, or newer than this build reads (naming both versions).
int project_file_version(const nlohmann::json& root);

// Version 1's legacy spellings, rewritten to the current one in place:
//   training.precision "fp8" (the FP8 switch before layout.fp8 carried it, b7be041 2026-12-01)
//   -> "bf16" with layout.fp8 true. Returns whether it changed anything. A field of the wrong
//   type is left as it is, for the typed read to refuse with its pointer.
bool normalize_legacy_forms(nlohmann::json& root);

// Whether `root` needs migrate_project (an earlier version or a legacy spelling); throws as
// project_file_version does. Reads no more than the version and the fields a step rewrites,
// so a current file is not copied.
bool project_needs_migration(const nlohmann::json& root);

// Takes `root` (any version this build reads) to the current version in place: the steps from
// its version on, then the legacy spellings; "paraplan" is set to kProjectSchemaVersion.
// Throws as project_file_version does, before changing anything.
void migrate_project(nlohmann::json& root);

}   // namespace paraplan

// libFuzzer target: the project loader must never crash, whatever the bytes, and the watched
// load (the app's, with progress and cancel) must read what the plain one reads, and so must the
// entry from parsed JSON (it migrates a copy where the text entry migrates its parse in place).
#include "project/project.h"
#include "util/input_error.h"
#include "util/json_read.h"
#include "util/progress.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace {
std::optional<paraplan::Project> load(std::string_view text, const paraplan::Progress* watch, std::string& error) {
    try {
        return watch ? paraplan::project_from_text(text, *watch) : paraplan::project_from_text(text);
    } catch (const paraplan::InputError& e) {
        error = e.what();
        return std::nullopt;
    }
}
}   // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::string plainError, watchedError;
    const auto plain = load(text, nullptr, plainError);
    long long last = -1;
    const paraplan::Progress watch{nullptr, [&last](long long done, long long) { last = done; }};
    const auto watched = load(text, &watch, watchedError);
    if (plain.has_value() != watched.has_value() || plainError != watchedError) std::abort();
    try {
        const paraplan::Project fromJson = paraplan::project_from_json(paraplan::json_read::parse(text));
        if (!plain || !(fromJson == *plain)) std::abort();
    } catch (const paraplan::InputError& e) {
        if (plain || plainError != e.what()) std::abort();
    }
    if (plain) {
        if (!(*plain == *watched) || last != static_cast<long long>(size)) std::abort();
        // A loaded project must save and load again.
        std::string error;
        if (!load(paraplan::project_to_text(*plain), nullptr, error)) std::abort();
    }
    return 0;
}

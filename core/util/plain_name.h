#pragma once
// A plain name: what a host, a user, an ssh profile or a job id may be when it can reach a
// command line, a file name or a terminal. Letters, digits, '.', '_' and '-' only (':' too where
// `colon`, for IPv6 addresses), never starting with '-' (an option to the program it reaches) and,
// where `leading_dot` is false, not with '.' (a hidden file, "..").
#include <cstddef>
#include <string_view>

namespace paraplan {

struct PlainName {
    bool colon = false;
    bool leading_dot = true;
    std::size_t max_size = 255;
};

bool is_plain_name(std::string_view s, PlainName rule = {});

}   // namespace paraplan

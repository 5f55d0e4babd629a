#pragma once
// Splits a byte stream into lines (handles partial lines and \r\n).
#include <string>
#include <string_view>
#include <vector>

namespace paraplan::runtime {

class LineBuffer {
public:
    // Appends bytes and returns the lines they complete, without the line ends.
    std::vector<std::string> append(std::string_view bytes);
    // The unterminated rest (at end of stream), then empty.
    std::string take_rest();

private:
    std::string pending_;
};

}   // namespace paraplan::runtime

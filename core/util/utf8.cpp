#include "util/utf8.h"

#include "util/input_error.h"

#include <string>

namespace paraplan::utf8 {

namespace {

// Length of the sequence a lead byte starts and the range its second byte must be in
// (RFC 3629, section 4: the syntax of UTF-8 byte sequences); 0 for a byte that cannot lead.
struct Lead {
    int length;
    unsigned char lo, hi;
};

Lead lead(unsigned char c) {
    if (c < 0x80) return {1, 0, 0};
    if (c >= 0xC2 && c <= 0xDF) return {2, 0x80, 0xBF};
    if (c == 0xE0) return {3, 0xA0, 0xBF};
    if (c == 0xED) return {3, 0x80, 0x9F};
    if (c >= 0xE1 && c <= 0xEF) return {3, 0x80, 0xBF};
    if (c == 0xF0) return {4, 0x90, 0xBF};
    if (c >= 0xF1 && c <= 0xF3) return {4, 0x80, 0xBF};
    if (c == 0xF4) return {4, 0x80, 0x8F};
    return {0, 0, 0};
}

}   // namespace

std::optional<std::size_t> first_invalid(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size()) {
        const Lead l = lead(static_cast<unsigned char>(text[i]));
        if (l.length == 0) return i;
        for (int k = 1; k < l.length; ++k) {
            if (i + k >= text.size()) return i + k;
            const auto c = static_cast<unsigned char>(text[i + k]);
            const unsigned char lo = k == 1 ? l.lo : 0x80, hi = k == 1 ? l.hi : 0xBF;
            if (c < lo || c > hi) return i + k;
        }
        i += static_cast<std::size_t>(l.length);
    }
    return std::nullopt;
}

void check(std::string_view text) {
    const auto bad = first_invalid(text);
    if (!bad) return;
    int line = 1, column = 1;
    for (std::size_t i = 0; i < *bad; ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    static const char* hex = "0123456789ABCDEF";
    const auto c = *bad < text.size() ? static_cast<unsigned char>(text[*bad]) : 0;
    const std::string byte = *bad < text.size() ? std::string("byte 0x") + hex[c >> 4] + hex[c & 15] : "the end";
    throw InputError("", "not UTF-8 text: " + byte + " does not fit a UTF-8 sequence", line, column);
}

}   // namespace paraplan::utf8

#include "network/byte_sizes.h"

#include "util/input_error.h"

#include <cctype>

namespace paraplan::network {

namespace {

std::uint64_t parse_one(const std::string& item, const std::string& what) {
    std::size_t i = 0;
    std::uint64_t v = 0;
    while (i < item.size() && std::isdigit(static_cast<unsigned char>(item[i]))) {
        if (v > (UINT64_MAX - 9) / 10) throw InputError(what, "size \"" + item + "\" is too large");
        v = v * 10 + static_cast<std::uint64_t>(item[i++] - '0');
    }
    if (i == 0) throw InputError(what, "\"" + item + "\" is not a size (bytes, or a number with K, M or G)");
    int shift = 0;
    if (i < item.size()) {
        const char s = static_cast<char>(std::toupper(static_cast<unsigned char>(item[i++])));
        shift = s == 'K' ? 10 : s == 'M' ? 20 : s == 'G' ? 30 : -1;
    }
    if (shift < 0 || i != item.size())
        throw InputError(what, "\"" + item + "\" is not a size (bytes, or a number with K, M or G)");
    if (v == 0 || v > (UINT64_MAX >> shift)) throw InputError(what, "size \"" + item + "\" is out of range");
    return v << shift;
}

}   // namespace

std::vector<std::uint64_t> parse_byte_list(const std::string& list, const std::string& what) {
    std::vector<std::uint64_t> out;
    std::size_t start = 0;
    while (start <= list.size()) {
        const auto comma = list.find(',', start);
        const std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!item.empty()) out.push_back(parse_one(item, what));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (out.empty()) throw InputError(what, "needs at least one size");
    return out;
}

}   // namespace paraplan::network

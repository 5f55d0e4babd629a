#pragma once
// Message sizes as nccl-tests' -b/-e take them: plain bytes, or K/M/G (powers of two).
#include <cstdint>
#include <string>
#include <vector>

namespace paraplan::network {

// "8,1M,2G" -> {8, 1048576, 2147483648}. Throws InputError naming `what` on a bad item.
std::vector<std::uint64_t> parse_byte_list(const std::string& list, const std::string& what = "--bytes");

}   // namespace paraplan::network

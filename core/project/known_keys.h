#pragma once
// The keys each section of a project file has: those read into typed fields (the rest is kept
// verbatim in the section's `extra`), and those of `extra` that something reads from there. One
// list per section, read by the loader (project.cpp) and by the rule project.unknown_key.
#include <string_view>
#include <vector>

namespace paraplan {

enum class KeySection { root, layout, training, network, node };

// JSON pointer of the section ("", "/layout", "/training", "/cluster/network"; a node's is
// "/cluster/nodes/<i>", which the caller builds).
std::string_view section_pointer(KeySection s);

// Keys read into typed fields.
const std::vector<std::string_view>& typed_keys(KeySection s);
bool is_typed_key(KeySection s, std::string_view key);

// Keys kept in `extra` that a reader looks up there (estimate.profile, the Megatron version the
// rules read, ColossalAI's extra_dp_size).
const std::vector<std::string_view>& extra_keys_read(KeySection s);

}   // namespace paraplan

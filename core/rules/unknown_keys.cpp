// project.unknown_key: a key a project file section holds that the loader keeps (project.cpp
// unknown_keys) but nothing reads (project/known_keys.h). Within two edits of a field it is taken
// for a typo (a warning naming the field); otherwise a note the file carries (info).
#include "project/known_keys.h"
#include "rules/common.h"
#include "util/edit_distance.h"

#include <string>

namespace paraplan::rules {
namespace {

constexpr int kMaxReported = 5;   // per section; the last one says how many more there are

// A JSON pointer reference token (RFC 6901: '~' as "~0", '/' as "~1").
std::string pointer_token(const std::string& key) {
    std::string t;
    for (const char ch : key) t += ch == '~' ? "~0" : ch == '/' ? "~1" : std::string(1, ch);
    return t;
}

bool read_from_extra(KeySection s, const std::string& key) {
    for (const std::string_view k : extra_keys_read(s))
        if (k == key) return true;
    return false;
}

void report(KeySection s, const std::string& pointer, const nlohmann::json& extra, Out& out) {
    if (!extra.is_object()) return;
    // Only the first kMaxReported keys are copied: a section may hold many notes.
    std::vector<std::string> keys;
    std::size_t unread = 0;
    for (auto it = extra.begin(); it != extra.end(); ++it)
        if (!read_from_extra(s, it.key()) && ++unread <= std::size_t(kMaxReported)) keys.push_back(it.key());
    const std::string where = pointer.empty() ? "the project's top level" : pointer.substr(1);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const std::string& key = keys[i];
        const std::string near = nearest_within(key, typed_keys(s));
        std::string message = "\"";
        message.append(key, 0, 64);
        if (key.size() > 64) message += "...";
        message += "\" in ";
        message += where;
        message += " is not a field Paraplan reads, so it changes nothing";
        if (!near.empty()) message += "; did you mean \"" + near + "\"?";
        message += " It is kept in the file as written.";
        if (i + 1 == keys.size() && unread > keys.size())
            message += " (" + std::to_string(unread - keys.size()) + " more keys there are not read either)";
        out.push_back(diag(near.empty() ? Severity::Info : Severity::Warning, "project.unknown_key", message, "",
                           {pointer + "/" + pointer_token(key)}));
    }
}

}   // namespace

void unknown_keys_kept(const Project& p, Out& out) {
    report(KeySection::root, "", p.extra.get(), out);
    report(KeySection::layout, std::string(section_pointer(KeySection::layout)), p.layout.extra.get(), out);
    report(KeySection::training, std::string(section_pointer(KeySection::training)), p.training.extra.get(), out);
    report(KeySection::network, std::string(section_pointer(KeySection::network)), p.cluster.network.extra.get(), out);
    for (std::size_t i = 0; i < p.cluster.nodes.size(); ++i)
        if (!p.cluster.nodes[i].extra.empty())
            report(KeySection::node, std::string(section_pointer(KeySection::node)) + "/" + std::to_string(i),
                   p.cluster.nodes[i].extra.get(), out);
}

}   // namespace paraplan::rules

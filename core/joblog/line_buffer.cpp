#include "joblog/line_buffer.h"

namespace paraplan::runtime {

std::vector<std::string> LineBuffer::append(std::string_view bytes) {
    std::vector<std::string> lines;
    for (char c : bytes) {
        if (c == '\n') {
            if (!pending_.empty() && pending_.back() == '\r') pending_.pop_back();
            lines.push_back(std::move(pending_));
            pending_.clear();
        } else {
            pending_ += c;
            if (pending_.size() > (1u << 20)) {   // a 1 MiB line without an end: cut it
                lines.push_back(std::move(pending_));
                pending_.clear();
            }
        }
    }
    return lines;
}

std::string LineBuffer::take_rest() {
    std::string r = std::move(pending_);
    pending_.clear();
    if (!r.empty() && r.back() == '\r') r.pop_back();
    return r;
}

}   // namespace paraplan::runtime

#pragma once
// A JSON object shared between copies until one of them writes (copy-on-write), for the
// unknown keys a model keeps only to write them back (`extra`).
//
// A project file may carry keys Paraplan does not know, and they can be large (a user's notes,
// a newer version's sections). Every copy of a project (each undo state, each fix candidate,
// the analysis worker's snapshot) copies only a pointer to them; equality first compares the
// pointers, so two states that share the keys compare without reading them. Reads through a
// const CowJson never copy; edit() gives this copy its own object first when others share it.
//
// Thread safety is that of the value in a std::shared_ptr, as for CowVector (cow_vector.h).
#include <nlohmann/json.hpp>

#include <atomic>
#include <memory>
#include <string_view>
#include <utility>

namespace paraplan {

class CowJson {
public:
    using json = nlohmann::json;

    CowJson() = default;
    CowJson(json j)   // NOLINT(google-explicit-constructor): a json object assigns as before
        : p_(j.is_null() || (j.is_object() && j.empty()) ? nullptr : std::make_shared<json>(std::move(j))) {}

    // --- reads: never copy
    const json& get() const { return p_ ? *p_ : none(); }
    operator const json&() const { return get(); }   // NOLINT(google-explicit-constructor)
    const json& operator*() const { return get(); }
    const json* operator->() const { return &get(); }
    bool empty() const { return get().empty(); }
    bool contains(std::string_view key) const { return get().contains(key); }
    bool is_object() const { return get().is_object(); }
    // The value at `key`, or nullptr.
    const json* find(std::string_view key) const {
        const json& j = get();
        if (!j.is_object()) return nullptr;
        const auto it = j.find(key);
        return it == j.end() ? nullptr : &*it;
    }

    // Whether this and `o` read the same object (not merely an equal one).
    bool shares_with(const CowJson& o) const { return p_ && p_ == o.p_; }

    friend bool operator==(const CowJson& a, const CowJson& b) { return a.p_ == b.p_ || a.get() == b.get(); }

    // --- writes: detach first when the object is shared
    json& edit() {
        if (!p_) {
            p_ = std::make_shared<json>(json::object());
        } else if (p_.use_count() > 1) {
            p_ = std::make_shared<json>(*p_);
        } else {
            // The last other owner's reads happen before its release of the count.
            std::atomic_thread_fence(std::memory_order_acquire);
        }
        return *p_;
    }
    void erase(const std::string& key) {
        if (contains(key)) edit().erase(key);
        if (p_ && p_->is_object() && p_->empty()) p_.reset();
    }
    void clear() { p_.reset(); }   // others keep theirs; nothing to copy

private:
    static const json& none() {
        static const json empty = json::object();
        return empty;
    }

    std::shared_ptr<json> p_;   // null: an empty object
};

}   // namespace paraplan

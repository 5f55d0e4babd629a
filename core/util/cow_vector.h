#pragma once
// A std::vector shared between copies until one of them writes (copy-on-write).
//
// Copying a CowVector copies a pointer: the copies read the same elements. Reads through a const
// CowVector (size, begin/end, operator[], conversion to const std::vector&) never copy. Anything
// that may write (the non-const accessors, push_back, resize, edit(), ...) first gives this copy
// its own elements when others still share them ("detaches"), so writes never show through
// another copy. Note that non-const begin()/operator[] count as writes: read a shared vector
// through a const reference (std::as_const) where a copy of the elements would cost.
//
// Thread safety is that of the elements in a std::shared_ptr: copies may live and be read on
// different threads; one CowVector object is not written from two threads at once.
#include <atomic>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

namespace paraplan {

template <class T>
class CowVector {
public:
    using vector_type = std::vector<T>;
    using value_type = T;
    using size_type = typename vector_type::size_type;
    using difference_type = typename vector_type::difference_type;
    using reference = typename vector_type::reference;
    using const_reference = typename vector_type::const_reference;
    using iterator = typename vector_type::iterator;
    using const_iterator = typename vector_type::const_iterator;

    CowVector() = default;
    CowVector(vector_type v)   // NOLINT(google-explicit-constructor): a vector assigns as before
        : p_(v.empty() ? nullptr : std::make_shared<vector_type>(std::move(v))) {}
    CowVector(std::initializer_list<T> il) : CowVector(vector_type(il)) {}
    CowVector& operator=(std::initializer_list<T> il) { return *this = CowVector(il); }

    // --- reads: never copy the elements
    const vector_type& vec() const { return p_ ? *p_ : none(); }
    operator const vector_type&() const { return vec(); }   // NOLINT(google-explicit-constructor)
    size_type size() const { return p_ ? p_->size() : 0; }
    bool empty() const { return size() == 0; }
    const T* data() const { return vec().data(); }
    const_iterator begin() const { return vec().begin(); }
    const_iterator end() const { return vec().end(); }
    const_iterator cbegin() const { return vec().cbegin(); }
    const_iterator cend() const { return vec().cend(); }
    const_reference operator[](size_type i) const { return (*p_)[i]; }
    const_reference at(size_type i) const { return vec().at(i); }
    const_reference front() const { return p_->front(); }
    const_reference back() const { return p_->back(); }

    // Whether this and `o` read the same elements (not merely equal ones).
    bool shares_with(const CowVector& o) const { return p_ && p_ == o.p_; }

    friend bool operator==(const CowVector& a, const CowVector& b) { return a.p_ == b.p_ || a.vec() == b.vec(); }
    friend bool operator==(const CowVector& a, const vector_type& b) { return a.vec() == b; }

    // --- writes: each detaches first when the elements are shared
    vector_type& edit() {
        if (!p_) {
            p_ = std::make_shared<vector_type>();
        } else if (p_.use_count() > 1) {
            p_ = std::make_shared<vector_type>(*p_);
        } else {
            // The last other owner's reads happen before its release of the count.
            std::atomic_thread_fence(std::memory_order_acquire);
        }
        return *p_;
    }
    T* data() { return edit().data(); }
    iterator begin() { return edit().begin(); }
    iterator end() { return edit().end(); }
    reference operator[](size_type i) { return edit()[i]; }
    reference at(size_type i) { return edit().at(i); }
    reference front() { return edit().front(); }
    reference back() { return edit().back(); }

    void push_back(const T& v) { edit().push_back(v); }
    void push_back(T&& v) { edit().push_back(std::move(v)); }
    template <class... A>
    reference emplace_back(A&&... a) {
        return edit().emplace_back(std::forward<A>(a)...);
    }
    void pop_back() { edit().pop_back(); }
    void reserve(size_type n) { edit().reserve(n); }
    void resize(size_type n) { edit().resize(n); }
    void resize(size_type n, const T& v) { edit().resize(n, v); }
    void clear() { p_.reset(); }   // others keep theirs; nothing to copy
    void assign(size_type n, const T& v) { *this = CowVector(vector_type(n, v)); }
    template <class It>
    void assign(It first, It last) {
        *this = CowVector(vector_type(first, last));
    }
    void assign(std::initializer_list<T> il) { *this = CowVector(il); }

    // `pos` may come from either begin(): it is taken as an offset into the elements.
    iterator erase(const_iterator pos) {
        const auto i = pos - cbegin();
        auto& v = edit();
        return v.erase(v.cbegin() + i);
    }
    iterator erase(const_iterator first, const_iterator last) {
        const auto i = first - cbegin(), j = last - cbegin();
        auto& v = edit();
        return v.erase(v.cbegin() + i, v.cbegin() + j);
    }
    iterator insert(const_iterator pos, const T& x) {
        const auto i = pos - cbegin();
        auto& v = edit();
        return v.insert(v.cbegin() + i, x);
    }
    iterator insert(const_iterator pos, T&& x) {
        const auto i = pos - cbegin();
        auto& v = edit();
        return v.insert(v.cbegin() + i, std::move(x));
    }
    template <class It>
    iterator insert(const_iterator pos, It first, It last) {
        const auto i = pos - cbegin();
        auto& v = edit();
        return v.insert(v.cbegin() + i, first, last);
    }

private:
    static const vector_type& none() {
        static const vector_type empty;
        return empty;
    }

    std::shared_ptr<vector_type> p_;   // null: no elements
};

}   // namespace paraplan

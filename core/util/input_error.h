#pragma once
// Bad input (project file, HF config, catalog entry): where and why.
#include <stdexcept>
#include <string>

namespace paraplan {

class InputError : public std::runtime_error {
public:
    // `pointer` is a JSON pointer ("/layout/tp") or empty; line/column are 1-based
    // positions for syntax errors (0 when unknown); `file` the file read, or empty.
    InputError(std::string pointer, std::string message, int line = 0, int column = 0, std::string file = {});

    const std::string& pointer() const { return pointer_; }
    const std::string& message() const { return message_; }
    int line() const { return line_; }
    int column() const { return column_; }
    const std::string& file() const { return file_; }

private:
    std::string pointer_;
    std::string message_;
    int line_;
    int column_;
    std::string file_;
};

// `e` said of the text of `file`: the same error naming the file, unless it names one already.
InputError in_file(const InputError& e, const std::string& file);

}   // namespace paraplan

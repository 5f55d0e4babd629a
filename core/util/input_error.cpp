#include "util/input_error.h"

namespace paraplan {

namespace {
std::string compose(const std::string& file, const std::string& pointer, const std::string& message, int line,
                    int column) {
    std::string s;
    if (!file.empty()) s += file + ": ";
    if (line > 0) s += "line " + std::to_string(line) + ", column " + std::to_string(column) + ": ";
    if (!pointer.empty()) s += pointer + ": ";
    return s + message;
}
}   // namespace

InputError::InputError(std::string pointer, std::string message, int line, int column, std::string file)
    : std::runtime_error(compose(file, pointer, message, line, column)),
      pointer_(std::move(pointer)),
      message_(std::move(message)),
      line_(line),
      column_(column),
      file_(std::move(file)) {}

InputError in_file(const InputError& e, const std::string& file) {
    if (!e.file().empty()) return e;
    return InputError(e.pointer(), e.message(), e.line(), e.column(), file);
}

}   // namespace paraplan

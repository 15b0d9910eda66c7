#pragma once

// A system library opened when a feature first needs it rather than when the process starts:
// libcurl (object storage) and libpq (the PostgreSQL change data source) bring in dozens of
// libraries of their own, whose loading and relocation would otherwise be most of the start-up
// time of every `silt` command and every `import silt`, object storage or not.

#include <dlfcn.h>

#include <string>

namespace silt {

class SharedLibrary {
 public:
  /// Opens `soname` (e.g. "libcurl.so.4", the name the runtime package installs). It stays
  /// loaded for the life of the process.
  explicit SharedLibrary(const char* soname) : soname_(soname) {
    handle_ = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) {
      const char* reason = dlerror();
      error_ = "cannot load " + soname_ + (reason != nullptr ? ": " + std::string(reason) : "");
    }
  }
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  /// Points `function` at the library's function `name`; a missing one makes the library not
  /// ok() (and leaves `function` null).
  template <typename Function>
  void Bind(Function*& function, const char* name) {
    void* address = handle_ != nullptr ? dlsym(handle_, name) : nullptr;
    if (address == nullptr && error_.empty()) error_ = soname_ + " has no function " + name;
    function = reinterpret_cast<Function*>(address);
  }

  /// Whether the library and every function bound so far were found.
  bool ok() const { return error_.empty(); }
  /// Why not, for an error message.
  const std::string& error() const { return error_; }

 private:
  std::string soname_;
  void* handle_ = nullptr;
  std::string error_;
};

/// The functions of a library opened once per process: `Api` is a struct of function pointers
/// that `bind` points at the library's functions (and may call to set the library up).
template <typename Api>
class LoadedLibrary {
 public:
  LoadedLibrary(const char* soname, void (*bind)(SharedLibrary& library, Api& api))
      : library_(soname) {
    bind(library_, api_);
  }

  /// The functions, or null when the library or one of them is missing (error() says why).
  const Api* api() const { return library_.ok() ? &api_ : nullptr; }
  const std::string& error() const { return library_.error(); }

 private:
  SharedLibrary library_;
  Api api_{};
};

}  // namespace silt

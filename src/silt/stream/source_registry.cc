#include "silt/stream/source_registry.h"

#include <map>
#include <mutex>

#include "silt/base/ascii.h"

namespace silt::stream {

namespace {

struct Registry {
  std::mutex mutex;
  // Functions are never removed, so pointers to them stay valid.
  std::map<std::string, std::unique_ptr<SourceFunction>, std::less<>> functions;
};

Registry& TheRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

}  // namespace

void RegisterSourceFunction(const std::string& name, SourceFunction function) {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto& slot = registry.functions[AsciiLower(name)];
  if (slot == nullptr) slot = std::make_unique<SourceFunction>();
  *slot = std::move(function);
}

const SourceFunction* FindSourceFunction(std::string_view name) {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.functions.find(AsciiLower(name));
  return it == registry.functions.end() ? nullptr : it->second.get();
}

std::vector<std::string> RegisteredSourceFunctions() {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  std::vector<std::string> names;
  for (const auto& [name, function] : registry.functions) names.push_back(name);
  return names;
}

}  // namespace silt::stream

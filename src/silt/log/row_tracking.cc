#include "silt/log/row_tracking.h"

#include <simdjson.h>

#include <string>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/error.h"
#include "silt/log/random_uuid.h"
#include "silt/log/table_features.h"

namespace silt::log {

namespace {

bool PropertyIsTrue(const Metadata& metadata, std::string_view key) {
  const std::string* value = FindValue(metadata.configuration, key);
  return value != nullptr && EqualsIgnoreCase(*value, "true");
}

}  // namespace

bool IsRowTrackingSupported(const Protocol& protocol) {
  return IsFeatureSupported(protocol, "rowTracking");
}

bool IsRowTrackingEnabled(const Protocol& protocol, const Metadata& metadata) {
  return IsRowTrackingSupported(protocol) && PropertyIsTrue(metadata, "delta.enableRowTracking");
}

bool IsRowTrackingSuspended(const Metadata& metadata) {
  return PropertyIsTrue(metadata, "delta.rowTrackingSuspended");
}

std::optional<int64_t> RowIdHighWaterMark(const DomainMetadata& domain) {
  simdjson::dom::parser parser;
  int64_t mark = 0;
  if (parser.parse(domain.configuration)["rowIdHighWaterMark"].get_int64().get(mark) !=
      simdjson::SUCCESS) {
    SILT_THROW(DELTA_INVALID_LOG_ENTRY,
               {{"file", "domainMetadata"},
                {"message", "the delta.rowTracking domain holds no integer rowIdHighWaterMark: " +
                                domain.configuration}});
  }
  return mark;
}

DomainMetadata RowTrackingDomain(int64_t high_water_mark) {
  return DomainMetadata{std::string(kRowTrackingDomain),
                        "{\"rowIdHighWaterMark\":" + std::to_string(high_water_mark) + "}", false};
}

void AssignMaterializedColumnNames(Metadata& metadata) {
  if (!PropertyIsTrue(metadata, "delta.enableRowTracking")) return;
  if (IsRowTrackingSuspended(metadata)) {
    SILT_THROW(DELTA_ROW_TRACKING_ILLEGAL_PROPERTY_COMBINATION,
               {{"property1", "delta.enableRowTracking"}, {"property2", "delta.rowTrackingSuspended"}});
  }
  auto assign = [&](std::string_view key, std::string_view prefix) {
    if (FindValue(metadata.configuration, key) != nullptr) return;
    metadata.configuration.emplace_back(std::string(key), std::string(prefix) + RandomUuid());
  };
  assign(kMaterializedRowIdColumnKey, "_row-id-col-");
  assign(kMaterializedRowCommitVersionColumnKey, "_row-commit-version-col-");
}

}  // namespace silt::log

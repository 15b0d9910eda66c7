#include "silt/expr/eval_context.h"

#include "silt/types/date_time.h"

namespace silt::expr {

const TimeZone& EvalContext::Zone() const {
  if (!zone_ || zone_id_ != time_zone) {
    std::shared_ptr<const TimeZone> zone = TimeZone::Find(time_zone);
    if (!zone) {
      SILT_THROW(INVALID_CONF_VALUE, {{"confValue", time_zone},
                                      {"confName", "spark.sql.session.timeZone"},
                                      {"message", "Cannot resolve the given timezone."}});
    }
    zone_ = std::move(zone);
    zone_id_ = time_zone;
  }
  return *zone_;
}

int64_t EvalContext::ZoneOffsetMicros() const {
  std::optional<int32_t> offset = Zone().fixed_offset_seconds();
  if (!offset) {
    SILT_THROW(NOT_IMPLEMENTED, {{"feature", "This operation in the region time zone '" + time_zone + "'"}});
  }
  return int64_t{*offset} * kMicrosPerSecond;
}

}  // namespace silt::expr

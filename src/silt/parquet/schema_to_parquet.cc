#include "silt/parquet/schema_to_parquet.h"

#include <charconv>

#include "silt/base/check.h"
#include "silt/parquet/encoding.h"

namespace silt::parquet {
namespace {

constexpr const char* kFieldIdKey = "parquet.field.id";

class SchemaBuilder {
 public:
  explicit SchemaBuilder(bool write_field_ids) : write_field_ids_(write_field_ids) {}

  WriterSchema Build(const Schema& schema) {
    SchemaElement root;
    root.name = "spark_schema";
    root.num_children = static_cast<int32_t>(schema.num_fields());
    result_.elements.push_back(std::move(root));
    for (size_t i = 0; i < schema.num_fields(); ++i) {
      top_level_field_ = i;
      std::vector<LevelStep> steps;
      std::vector<std::string> path;
      AddNode(schema.field(i).name, schema.field(i).type, schema.field(i).nullable,
              &schema.field(i), steps, path, 0, 0);
    }
    return std::move(result_);
  }

 private:
  std::optional<int32_t> FieldId(const Field* field) const {
    if (!write_field_ids_ || field == nullptr) return std::nullopt;
    const std::string* raw = field->FindMetadata(kFieldIdKey);
    if (raw == nullptr) return std::nullopt;
    int32_t id = 0;
    const char* end = raw->data() + raw->size();
    auto [ptr, error] = std::from_chars(raw->data(), end, id);
    SILT_USER_CHECK(error == std::errc() && ptr == end, PARQUET_WRITE_ERROR,
                    {{"path", field->name},
                     {"message", "field metadata parquet.field.id is not an integer: " + *raw}});
    return id;
  }

  // Adds the element for a node of `type` named `name` (and its subtree). `steps` and `path`
  // lead to this node; `definition` and `repetition` are the levels of the parent node.
  void AddNode(const std::string& name, const DataTypePtr& type_pointer, bool nullable,
               const Field* field, std::vector<LevelStep> steps, std::vector<std::string> path,
               int16_t definition, int16_t repetition) {
    const DataType& type = *type_pointer;
    SchemaElement element;
    element.name = name;
    // Void columns are always OPTIONAL: every value is NULL.
    bool optional = nullable || type.id() == TypeId::kNull;
    element.repetition_type = optional ? Repetition::kOptional : Repetition::kRequired;
    element.field_id = FieldId(field);
    int16_t own_definition = static_cast<int16_t>(definition + (optional ? 1 : 0));
    path.push_back(name);
    LevelStep step;
    step.nullable = optional;

    switch (type.id()) {
      case TypeId::kStruct: {
        SILT_USER_CHECK(!type.fields().empty(), UNSUPPORTED_DATA_TYPE,
                        {{"type", "struct<> (Parquet groups need at least one field)"}});
        element.num_children = static_cast<int32_t>(type.fields().size());
        result_.elements.push_back(std::move(element));
        for (size_t i = 0; i < type.fields().size(); ++i) {
          const Field& child = type.fields()[i];
          std::vector<LevelStep> child_steps = steps;
          step.kind = LevelStep::Kind::kStruct;
          step.child = static_cast<int>(i);
          child_steps.push_back(step);
          AddNode(child.name, child.type, child.nullable, &child, std::move(child_steps), path,
                  own_definition, repetition);
        }
        return;
      }
      case TypeId::kList: {
        // <name> (LIST) { repeated group list { <element> element } }
        element.num_children = 1;
        element.converted_type = ConvertedType::kList;
        element.logical_type.kind = LogicalType::Kind::kList;
        result_.elements.push_back(std::move(element));
        SchemaElement repeated;
        repeated.name = "list";
        repeated.repetition_type = Repetition::kRepeated;
        repeated.num_children = 1;
        result_.elements.push_back(std::move(repeated));
        step.kind = LevelStep::Kind::kList;
        step.repetition_level = static_cast<int16_t>(repetition + 1);
        steps.push_back(step);
        path.push_back("list");
        const Field& child = type.fields()[0];
        AddNode("element", child.type, child.nullable, &child, std::move(steps), path,
                static_cast<int16_t>(own_definition + 1), static_cast<int16_t>(repetition + 1));
        return;
      }
      case TypeId::kMap: {
        // <name> (MAP) { repeated group key_value { required key; <value> value } }
        element.num_children = 1;
        element.converted_type = ConvertedType::kMap;
        element.logical_type.kind = LogicalType::Kind::kMap;
        result_.elements.push_back(std::move(element));
        SchemaElement repeated;
        repeated.name = "key_value";
        repeated.repetition_type = Repetition::kRepeated;
        repeated.num_children = 2;
        result_.elements.push_back(std::move(repeated));
        path.push_back("key_value");
        step.kind = LevelStep::Kind::kMap;
        step.repetition_level = static_cast<int16_t>(repetition + 1);
        for (int i = 0; i < 2; ++i) {
          const Field& child = type.fields()[static_cast<size_t>(i)];
          std::vector<LevelStep> child_steps = steps;
          step.child = i;
          child_steps.push_back(step);
          // Map keys are never NULL in Spark; Parquet requires them.
          AddNode(i == 0 ? "key" : "value", child.type, i == 0 ? false : child.nullable, &child,
                  std::move(child_steps), path, static_cast<int16_t>(own_definition + 1),
                  static_cast<int16_t>(repetition + 1));
        }
        return;
      }
      default:
        break;
    }

    WriterLeafColumn leaf;
    leaf.type = type_pointer;
    SetPrimitive(type, &element, &leaf);
    step.kind = LevelStep::Kind::kLeaf;
    steps.push_back(step);
    leaf.path = std::move(path);
    leaf.top_level_field = top_level_field_;
    leaf.steps = std::move(steps);
    leaf.max_definition_level = own_definition;
    leaf.max_repetition_level = repetition;
    result_.elements.push_back(std::move(element));
    result_.leaves.push_back(std::move(leaf));
  }

  static void SetPrimitive(const DataType& type, SchemaElement* element, WriterLeafColumn* leaf) {
    auto integer = [&](int8_t bits, ConvertedType converted) {
      element->logical_type.kind = LogicalType::Kind::kInteger;
      element->logical_type.bit_width = bits;
      element->logical_type.is_signed = true;
      element->converted_type = converted;
    };
    PhysicalType physical = PhysicalType::kInt32;
    StatisticsKind statistics = StatisticsKind::kInt32;
    switch (type.id()) {
      case TypeId::kNull:
        // Spark refuses to write void columns to Parquet; Arrow writes them as INT32 with the
        // UNKNOWN (null) logical type, which keeps the column visible to readers.
        element->logical_type.kind = LogicalType::Kind::kUnknown;
        break;
      case TypeId::kBoolean:
        physical = PhysicalType::kBoolean;
        statistics = StatisticsKind::kBoolean;
        break;
      case TypeId::kByte:
        integer(8, ConvertedType::kInt8);
        break;
      case TypeId::kShort:
        integer(16, ConvertedType::kInt16);
        break;
      case TypeId::kInteger:
        break;
      case TypeId::kLong:
        physical = PhysicalType::kInt64;
        statistics = StatisticsKind::kInt64;
        break;
      case TypeId::kFloat:
        physical = PhysicalType::kFloat;
        statistics = StatisticsKind::kFloat;
        break;
      case TypeId::kDouble:
        physical = PhysicalType::kDouble;
        statistics = StatisticsKind::kDouble;
        break;
      case TypeId::kDate:
        element->logical_type.kind = LogicalType::Kind::kDate;
        element->converted_type = ConvertedType::kDate;
        break;
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz: {
        physical = PhysicalType::kInt64;
        statistics = StatisticsKind::kInt64;
        bool utc = type.id() == TypeId::kTimestamp;
        element->logical_type.kind = LogicalType::Kind::kTimestamp;
        element->logical_type.is_adjusted_to_utc = utc;
        element->logical_type.unit = TimeUnit::kMicros;
        // TIMESTAMP_MICROS means UTC-adjusted, so timestamp_ntz has no converted type.
        if (utc) element->converted_type = ConvertedType::kTimestampMicros;
        break;
      }
      case TypeId::kString:
        physical = PhysicalType::kByteArray;
        statistics = StatisticsKind::kByteArray;
        element->logical_type.kind = LogicalType::Kind::kString;
        element->converted_type = ConvertedType::kUtf8;
        leaf->utf8 = true;
        break;
      case TypeId::kBinary:
        physical = PhysicalType::kByteArray;
        statistics = StatisticsKind::kByteArray;
        break;
      case TypeId::kDecimal: {
        int precision = type.precision();
        if (precision <= 9) {
          physical = PhysicalType::kInt32;
          statistics = StatisticsKind::kInt32;
        } else if (precision <= 18) {
          physical = PhysicalType::kInt64;
          statistics = StatisticsKind::kInt64;
        } else {
          physical = PhysicalType::kFixedLenByteArray;
          statistics = StatisticsKind::kDecimal;
          leaf->type_length = MinimalDecimalBytes(precision);
          element->type_length = leaf->type_length;
        }
        element->logical_type.kind = LogicalType::Kind::kDecimal;
        element->logical_type.decimal_precision = precision;
        element->logical_type.decimal_scale = type.scale();
        element->converted_type = ConvertedType::kDecimal;
        element->precision = precision;
        element->scale = type.scale();
        break;
      }
      default:
        SILT_THROW(UNSUPPORTED_DATA_TYPE, {{"type", type.ToString()}});
    }
    element->type = physical;
    leaf->physical_type = physical;
    leaf->statistics_kind = statistics;
  }

  bool write_field_ids_;
  size_t top_level_field_ = 0;
  WriterSchema result_;
};

}  // namespace

WriterSchema SchemaToParquet(const Schema& schema, bool write_field_ids) {
  return SchemaBuilder(write_field_ids).Build(schema);
}

}  // namespace silt::parquet

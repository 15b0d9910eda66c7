#include "silt/parquet/schema_from_parquet.h"

#include <utility>

#include "silt/base/check.h"

namespace silt::parquet {
namespace {

// Deeper schemas than this are rejected: the assembly recurses once per level, and definition
// levels are int16.
constexpr int kMaxSchemaDepth = 100;
constexpr const char* kFieldIdKey = "parquet.field.id";

[[noreturn]] void CorruptSchema(const std::string& what) {
  SILT_THROW(PARQUET_CORRUPT_FILE, {{"path", "<schema>"}, {"message", what}});
}

[[noreturn]] void Unsupported(const std::string& what) {
  SILT_THROW(PARQUET_UNSUPPORTED_FEATURE, {{"path", "<schema>"}, {"feature", what}});
}

// The footer's depth-first element list as a tree of indexes.
struct TreeNode {
  int index = 0;
  std::vector<TreeNode> children;
};

TreeNode BuildTree(const std::vector<SchemaElement>& elements, size_t* next, int depth) {
  if (depth > kMaxSchemaDepth) CorruptSchema("schema nested more than 100 levels deep");
  if (*next >= elements.size()) CorruptSchema("schema ends inside a group");
  TreeNode node;
  node.index = static_cast<int>(*next);
  const SchemaElement& element = elements[(*next)++];
  // Columns are found by name: a nameless one could only be read as missing (all NULL).
  if (depth > 0 && element.name.empty()) {
    CorruptSchema("schema element " + std::to_string(node.index) + " has an empty name");
  }
  int children = element.num_children.value_or(0);
  if (children < 0) CorruptSchema("negative num_children for " + element.name);
  if (static_cast<size_t>(children) > elements.size() - *next) {
    CorruptSchema("num_children of " + element.name + " exceeds the schema");
  }
  if (!element.type.has_value() && children == 0 && depth > 0) {
    // A group without children (Spark writes none, but empty structs exist in the wild).
    Unsupported("empty group " + element.name);
  }
  for (int i = 0; i < children; ++i) node.children.push_back(BuildTree(elements, next, depth + 1));
  return node;
}

bool IsGroup(const SchemaElement& element, const TreeNode& node) {
  return !node.children.empty() || !element.type.has_value();
}

DataTypePtr MakeDecimal(int precision, int scale, const std::string& name) {
  if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
    Unsupported("decimal(" + std::to_string(precision) + "," + std::to_string(scale) +
                ") of column " + name);
  }
  return DecimalType(precision, scale);
}

class Converter {
 public:
  explicit Converter(const std::vector<SchemaElement>& elements) : elements_(elements) {}

  ParquetSchema Convert() {
    if (elements_.empty()) CorruptSchema("empty schema");
    size_t next = 0;
    TreeNode root = BuildTree(elements_, &next, 0);
    if (next != elements_.size()) CorruptSchema("schema has elements after the root's children");
    ParquetSchema result;
    std::vector<Field> fields;
    for (const TreeNode& child : root.children) {
      path_.clear();
      result.columns.push_back(ConvertField(child, 0, 0, 0));
      fields.push_back(result.columns.back().field);
    }
    result.schema = Schema(std::move(fields));
    result.leaves = std::move(leaves_);
    return result;
  }

 private:
  const SchemaElement& element(const TreeNode& node) const { return elements_[node.index]; }

  // A field in struct context: applies its own repetition. `def`/`rep`/`repeated_ancestor_level`
  // describe the parent's slot (see SchemaNode).
  SchemaNode ConvertField(const TreeNode& node, int def, int rep, int repeated_ancestor_level) {
    const SchemaElement& e = element(node);
    Repetition repetition = e.repetition_type.value_or(Repetition::kOptional);
    if (repetition == Repetition::kRepeated) {
      // A repeated field outside a LIST/MAP group is a non-null list of required elements.
      SchemaNode list;
      list.kind = SchemaNode::Kind::kList;
      list.definition_level = Level(def);
      list.repetition_level = Level(rep);
      list.repeated_ancestor_definition_level = Level(repeated_ancestor_level);
      list.element_definition_level = Level(def + 1);
      path_.push_back(e.name);
      SchemaNode item = ConvertValue(node, def + 1, rep + 1, def + 1);
      path_.pop_back();
      item.field.name = "element";
      item.field.nullable = false;
      list.field.name = e.name;
      list.field.nullable = false;
      list.field.type = ListType(item.field.type, false);
      AddFieldId(e, &list.field);
      list.children.push_back(std::move(item));
      Summarize(&list);
      return list;
    }
    int own_def = def + (repetition == Repetition::kOptional ? 1 : 0);
    path_.push_back(e.name);
    SchemaNode result = ConvertValue(node, own_def, rep, repeated_ancestor_level);
    path_.pop_back();
    result.field.name = e.name;
    result.field.nullable = repetition == Repetition::kOptional;
    AddFieldId(e, &result.field);
    return result;
  }

  // The value of `node` whose own repetition was already applied: `def` is the level at which
  // it is non-null.
  SchemaNode ConvertValue(const TreeNode& node, int def, int rep, int repeated_ancestor_level) {
    const SchemaElement& e = element(node);
    SchemaNode result;
    result.definition_level = Level(def);
    result.repetition_level = Level(rep);
    result.repeated_ancestor_definition_level = Level(repeated_ancestor_level);
    if (!IsGroup(e, node)) {
      result.kind = SchemaNode::Kind::kLeaf;
      result.leaf_index = static_cast<int>(leaves_.size());
      leaves_.push_back(MakeLeaf(e, def, rep));
      result.field.type = leaves_.back().type;
      Summarize(&result);
      return result;
    }
    bool is_list =
        e.logical_type.kind == LogicalType::Kind::kList || e.converted_type == ConvertedType::kList;
    bool is_map = e.logical_type.kind == LogicalType::Kind::kMap ||
                  e.converted_type == ConvertedType::kMap ||
                  e.converted_type == ConvertedType::kMapKeyValue;
    if (is_list && node.children.size() == 1 &&
        element(node.children[0]).repetition_type == Repetition::kRepeated) {
      return ConvertList(node, std::move(result), def, rep);
    }
    if (is_map && node.children.size() == 1 &&
        element(node.children[0]).repetition_type == Repetition::kRepeated &&
        IsGroup(element(node.children[0]), node.children[0]) &&
        node.children[0].children.size() == 2) {
      return ConvertMap(node, std::move(result), def, rep);
    }
    if (is_list || is_map) {
      Unsupported(std::string(is_list ? "LIST" : "MAP") + " group " + e.name +
                  " without the required repeated child");
    }
    result.kind = SchemaNode::Kind::kStruct;
    std::vector<Field> fields;
    for (const TreeNode& child : node.children) {
      result.children.push_back(ConvertField(child, def, rep, repeated_ancestor_level));
      fields.push_back(result.children.back().field);
    }
    result.field.type = StructType(std::move(fields));
    Summarize(&result);
    return result;
  }

  SchemaNode ConvertList(const TreeNode& node, SchemaNode list, int def, int rep) {
    const SchemaElement& e = element(node);
    const TreeNode& repeated = node.children[0];
    const SchemaElement& r = element(repeated);
    list.kind = SchemaNode::Kind::kList;
    list.element_definition_level = Level(def + 1);
    path_.push_back(r.name);
    SchemaNode item;
    // LogicalTypes.md "Backward-compatibility rules": the repeated field is itself the element
    // when it is primitive, has several fields, or is named "array" or "<list>_tuple".
    bool repeated_is_element = !IsGroup(r, repeated) || repeated.children.size() > 1 ||
                               r.name == "array" || r.name == e.name + "_tuple";
    if (repeated_is_element) {
      item = ConvertValue(repeated, def + 1, rep + 1, def + 1);
      item.field.nullable = false;
    } else {
      item = ConvertField(repeated.children[0], def + 1, rep + 1, def + 1);
    }
    path_.pop_back();
    item.field.name = "element";
    list.field.type = ListType(item.field.type, item.field.nullable);
    list.children.push_back(std::move(item));
    Summarize(&list);
    return list;
  }

  SchemaNode ConvertMap(const TreeNode& node, SchemaNode map, int def, int rep) {
    const TreeNode& entries = node.children[0];
    map.kind = SchemaNode::Kind::kMap;
    map.element_definition_level = Level(def + 1);
    path_.push_back(element(entries).name);
    SchemaNode key = ConvertField(entries.children[0], def + 1, rep + 1, def + 1);
    SchemaNode value = ConvertField(entries.children[1], def + 1, rep + 1, def + 1);
    path_.pop_back();
    key.field.name = "key";
    key.field.nullable = false;
    value.field.name = "value";
    map.field.type = MapType(key.field.type, value.field.type, value.field.nullable);
    map.children.push_back(std::move(key));
    map.children.push_back(std::move(value));
    Summarize(&map);
    return map;
  }

  LeafColumn MakeLeaf(const SchemaElement& e, int def, int rep) {
    LeafColumn leaf;
    leaf.column_index = static_cast<int>(leaves_.size());
    leaf.path = path_;
    leaf.physical_type = *e.type;
    leaf.max_definition_level = Level(def);
    leaf.max_repetition_level = Level(rep);
    const LogicalType& logical = e.logical_type;
    std::optional<ConvertedType> converted = e.converted_type;
    auto is = [&](ConvertedType type) { return converted == type; };
    auto decimal = [&]() {
      int precision = logical.kind == LogicalType::Kind::kDecimal ? logical.decimal_precision
                                                                  : e.precision.value_or(0);
      int scale =
          logical.kind == LogicalType::Kind::kDecimal ? logical.decimal_scale : e.scale.value_or(0);
      return MakeDecimal(precision, scale, e.name);
    };
    bool is_decimal = logical.kind == LogicalType::Kind::kDecimal || is(ConvertedType::kDecimal);
    switch (leaf.physical_type) {
      case PhysicalType::kBoolean:
        leaf.type = BooleanType();
        break;
      case PhysicalType::kInt32: {
        int width = 32;
        bool is_signed = true;
        if (logical.kind == LogicalType::Kind::kInteger) {
          width = logical.bit_width;
          is_signed = logical.is_signed;
        } else if (is(ConvertedType::kInt8)) {
          width = 8;
        } else if (is(ConvertedType::kInt16)) {
          width = 16;
        } else if (is(ConvertedType::kUint8) || is(ConvertedType::kUint16) ||
                   is(ConvertedType::kUint32)) {
          is_signed = false;
          width = is(ConvertedType::kUint8) ? 8 : is(ConvertedType::kUint16) ? 16 : 32;
        }
        if (is_decimal) {
          leaf.type = decimal();
          leaf.conversion = ValueConversion::kInt32ToDecimal;
        } else if (logical.kind == LogicalType::Kind::kDate || is(ConvertedType::kDate)) {
          leaf.type = DateType();
        } else if ((logical.kind == LogicalType::Kind::kTime &&
                    logical.unit == TimeUnit::kMillis) ||
                   is(ConvertedType::kTimeMillis)) {
          leaf.type = LongType();
          leaf.conversion = ValueConversion::kTimeMillisToLong;
        } else if (!is_signed) {
          leaf.is_unsigned = true;
          leaf.signed_order = false;
          if (width == 8) {
            leaf.type = ShortType();
            leaf.conversion = ValueConversion::kInt32ToShort;
          } else if (width == 16) {
            leaf.type = IntegerType();
          } else {
            leaf.type = LongType();
            leaf.conversion = ValueConversion::kUint32ToLong;
          }
        } else if (width == 8) {
          leaf.type = ByteType();
          leaf.conversion = ValueConversion::kInt32ToByte;
        } else if (width == 16) {
          leaf.type = ShortType();
          leaf.conversion = ValueConversion::kInt32ToShort;
        } else {
          leaf.type = IntegerType();
        }
        break;
      }
      case PhysicalType::kInt64: {
        bool is_unsigned = (logical.kind == LogicalType::Kind::kInteger && !logical.is_signed) ||
                           is(ConvertedType::kUint64);
        if (is_decimal) {
          leaf.type = decimal();
          leaf.conversion = ValueConversion::kInt64ToDecimal;
        } else if (logical.kind == LogicalType::Kind::kTimestamp) {
          leaf.type = logical.is_adjusted_to_utc ? TimestampType() : TimestampNtzType();
          leaf.unit = logical.unit;
          leaf.conversion = logical.unit == TimeUnit::kMillis  ? ValueConversion::kMillisToMicros
                            : logical.unit == TimeUnit::kNanos ? ValueConversion::kNanosToMicros
                                                               : ValueConversion::kNone;
        } else if (is(ConvertedType::kTimestampMillis) || is(ConvertedType::kTimestampMicros)) {
          leaf.type = TimestampType();
          leaf.unit = is(ConvertedType::kTimestampMillis) ? TimeUnit::kMillis : TimeUnit::kMicros;
          if (leaf.unit == TimeUnit::kMillis) leaf.conversion = ValueConversion::kMillisToMicros;
        } else if (logical.kind == LogicalType::Kind::kTime || is(ConvertedType::kTimeMicros)) {
          leaf.type = LongType();
          if (logical.kind == LogicalType::Kind::kTime && logical.unit == TimeUnit::kNanos) {
            leaf.conversion = ValueConversion::kNanosToMicros;
          } else if (logical.kind == LogicalType::Kind::kTime &&
                     logical.unit == TimeUnit::kMillis) {
            leaf.conversion = ValueConversion::kMillisToMicros;
          }
        } else if (is_unsigned) {
          leaf.is_unsigned = true;
          leaf.signed_order = false;
          leaf.type = DecimalType(20, 0);
          leaf.conversion = ValueConversion::kUint64ToDecimal;
        } else {
          leaf.type = LongType();
        }
        break;
      }
      case PhysicalType::kInt96:
        // INT96 has no defined sort order: its statistics are never used.
        leaf.signed_order = false;
        leaf.type = TimestampType();
        leaf.conversion = ValueConversion::kInt96ToTimestamp;
        break;
      case PhysicalType::kFloat:
        leaf.type = FloatType();
        break;
      case PhysicalType::kDouble:
        leaf.type = DoubleType();
        break;
      case PhysicalType::kByteArray:
      case PhysicalType::kFixedLenByteArray: {
        bool fixed = leaf.physical_type == PhysicalType::kFixedLenByteArray;
        if (fixed) {
          if (!e.type_length.has_value() || *e.type_length <= 0) {
            CorruptSchema("FIXED_LEN_BYTE_ARRAY column " + e.name + " without a length");
          }
          leaf.type_length = *e.type_length;
        }
        // Byte arrays compare unsigned, so the legacy (signed) min/max are unusable.
        leaf.signed_order = false;
        if (is_decimal) {
          leaf.type = decimal();
          leaf.conversion = ValueConversion::kBytesToDecimal;
          if (fixed && leaf.type_length > 16) {
            Unsupported("decimal column " + e.name + " stored in more than 16 bytes");
          }
        } else if (logical.kind == LogicalType::Kind::kFloat16) {
          Unsupported("FLOAT16 column " + e.name);
        } else if (is(ConvertedType::kInterval)) {
          Unsupported("INTERVAL column " + e.name);
        } else if (!fixed &&
                   (logical.kind == LogicalType::Kind::kString ||
                    logical.kind == LogicalType::Kind::kEnum ||
                    logical.kind == LogicalType::Kind::kJson || is(ConvertedType::kUtf8) ||
                    is(ConvertedType::kEnum) || is(ConvertedType::kJson))) {
          leaf.type = StringType();
          leaf.conversion = ValueConversion::kByteArray;
        } else {
          leaf.type = BinaryType();
          leaf.conversion = fixed ? ValueConversion::kFixedToBinary : ValueConversion::kByteArray;
        }
        break;
      }
      default:
        CorruptSchema("unknown physical type " + std::to_string(static_cast<int>(*e.type)) +
                      " of column " + e.name);
    }
    return leaf;
  }

  static int16_t Level(int level) { return static_cast<int16_t>(level); }

  static void AddFieldId(const SchemaElement& e, Field* field) {
    if (e.field_id.has_value())
      field->metadata.emplace_back(kFieldIdKey, std::to_string(*e.field_id));
  }

  static void Summarize(SchemaNode* node) {
    if (node->kind == SchemaNode::Kind::kLeaf) {
      node->first_leaf = node->leaf_index;
      node->leaf_count = 1;
      return;
    }
    node->first_leaf = node->children.front().first_leaf;
    node->leaf_count = 0;
    for (const SchemaNode& child : node->children) node->leaf_count += child.leaf_count;
  }

  const std::vector<SchemaElement>& elements_;
  std::vector<LeafColumn> leaves_;
  std::vector<std::string> path_;
};

}  // namespace

ParquetSchema SchemaFromParquet(const std::vector<SchemaElement>& elements) {
  return Converter(elements).Convert();
}

}  // namespace silt::parquet

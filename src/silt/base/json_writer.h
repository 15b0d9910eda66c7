#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace silt {

/// Appends `value` as a quoted JSON string. Escapes `"` and `\`, writes \b \f \n \r \t in their
/// short forms (as Jackson, and so Spark, does) and other control characters below 0x20 as
/// \u00XX; every other byte, including UTF-8 sequences, is copied unchanged.
void AppendJsonString(std::string& out, std::string_view value);
/// Returns `value` escaped as by AppendJsonString, without the surrounding quotes.
std::string JsonEscape(std::string_view value);
/// Appends `value` in the shortest form that parses back to the same double ("0.1", "1e-05",
/// "12345"). Non-finite values are not JSON numbers: they are written as the strings "NaN",
/// "Infinity" and "-Infinity", as Spark's Jackson does by default.
void AppendJsonDouble(std::string& out, double value);

/// A streaming writer of compact JSON (no whitespace). Commas are inserted automatically; inside
/// an object, each value must be preceded by Key(). Misuse (a value without a key, unbalanced
/// End calls) throws INTERNAL_ERROR. Not thread-safe.
///
///   JsonWriter json;
///   json.BeginObject();
///   json.Key("id");
///   json.Int(1);
///   json.EndObject();
///   json.str();  // {"id":1}
class JsonWriter {
 public:
  JsonWriter() = default;

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  /// The key of the next object member.
  void Key(std::string_view key);

  void String(std::string_view value);
  void Int(int64_t value);
  void UInt(uint64_t value);
  /// See AppendJsonDouble.
  void Double(double value);
  void Bool(bool value);
  void Null();
  /// Inserts `json`, which must be one complete JSON value, verbatim (e.g. stored field metadata
  /// or a pre-rendered decimal number).
  void Raw(std::string_view json);

  /// The text written so far.
  const std::string& str() const { return out_; }
  /// Moves the text out and resets the writer.
  std::string Release();
  /// True when every object and array begun has been ended and one value was written.
  bool complete() const { return stack_.empty() && wrote_root_; }

 private:
  enum class Scope : uint8_t { kObject, kArray };
  struct Frame {
    Scope scope;
    bool empty = true;
    bool has_key = false;
  };

  // Writes the separator a new value needs and checks that a value is allowed here.
  void BeforeValue();

  std::string out_;
  std::vector<Frame> stack_;
  bool wrote_root_ = false;
};

}  // namespace silt

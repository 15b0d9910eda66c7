#include "silt/cdc/replication_protocol.h"

#include <cstdio>

#include "silt/base/error_class.h"

namespace silt::cdc {

std::string FormatLsn(Lsn lsn) {
  char text[32];
  std::snprintf(text, sizeof(text), "%X/%X", static_cast<unsigned>(lsn >> 32),
                static_cast<unsigned>(lsn & 0xffffffffu));
  return text;
}

std::optional<Lsn> ParseLsn(std::string_view text) {
  size_t slash = text.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == text.size()) return std::nullopt;
  auto half = [](std::string_view digits) -> std::optional<uint64_t> {
    if (digits.size() > 8) return std::nullopt;
    uint64_t value = 0;
    for (char c : digits) {
      int digit;
      if (c >= '0' && c <= '9') digit = c - '0';
      else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
      else return std::nullopt;
      value = value * 16 + static_cast<uint64_t>(digit);
    }
    return value;
  };
  auto high = half(text.substr(0, slash));
  auto low = half(text.substr(slash + 1));
  if (!high || !low) return std::nullopt;
  return (*high << 32) | *low;
}

namespace {

[[noreturn]] void ThrowMalformed(const std::string& what) {
  throw MakeError(ErrorClass::CDC_SOURCE_FAILED,
                  {{"source", "PostgreSQL"}, {"message", "malformed replication message: " + what}});
}

// Reads the big-endian fields of one message, checking every length.
class Reader {
 public:
  Reader(std::string_view data, const char* message) : data_(data), message_(message) {}

  uint64_t Unsigned(int bytes) {
    Need(static_cast<size_t>(bytes));
    uint64_t value = 0;
    for (int i = 0; i < bytes; ++i) value = (value << 8) | static_cast<unsigned char>(data_[pos_++]);
    return value;
  }
  int64_t Int64() { return static_cast<int64_t>(Unsigned(8)); }
  uint32_t UInt32() { return static_cast<uint32_t>(Unsigned(4)); }
  int32_t Int32() { return static_cast<int32_t>(UInt32()); }
  int16_t Int16() { return static_cast<int16_t>(Unsigned(2)); }
  char Byte() { return static_cast<char>(Unsigned(1)); }
  char PeekByte() {
    Need(1);
    return data_[pos_];
  }
  // A NUL-terminated string.
  std::string String() {
    size_t end = data_.find('\0', pos_);
    if (end == std::string_view::npos) ThrowMalformed(std::string(message_) + " (unterminated string)");
    std::string value(data_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return value;
  }
  std::string_view Bytes(size_t count) {
    Need(count);
    std::string_view value = data_.substr(pos_, count);
    pos_ += count;
    return value;
  }
  bool AtEnd() const { return pos_ == data_.size(); }
  std::string_view Rest() const { return data_.substr(pos_); }

 private:
  void Need(size_t count) const {
    if (data_.size() - pos_ < count) ThrowMalformed(std::string(message_) + " (truncated)");
  }
  std::string_view data_;
  const char* message_;
  size_t pos_ = 0;
};

Tuple ReadTuple(Reader& in) {
  int16_t count = in.Int16();
  if (count < 0) ThrowMalformed("tuple with a negative column count");
  Tuple tuple(static_cast<size_t>(count));
  for (TupleValue& value : tuple) {
    char kind = in.Byte();
    switch (kind) {
      case 'n': value.kind = TupleValue::Kind::kNull; break;
      case 'u': value.kind = TupleValue::Kind::kUnchangedToast; break;
      case 't':
      case 'b': {
        value.kind = kind == 't' ? TupleValue::Kind::kText : TupleValue::Kind::kBinary;
        int32_t length = in.Int32();
        if (length < 0) ThrowMalformed("tuple value with a negative length");
        value.bytes = in.Bytes(static_cast<size_t>(length));
        break;
      }
      default:
        ThrowMalformed(std::string("tuple value of unknown kind '") + kind + "'");
    }
  }
  return tuple;
}

}  // namespace

ReplicationFrame DecodeReplicationFrame(std::string_view frame) {
  Reader in(frame, "replication frame");
  char kind = in.Byte();
  if (kind == 'w') {
    XLogData data;
    data.wal_start = static_cast<Lsn>(in.Int64());
    data.wal_end = static_cast<Lsn>(in.Int64());
    data.send_time = in.Int64();
    data.payload = in.Rest();
    return data;
  }
  if (kind == 'k') {
    PrimaryKeepalive keepalive;
    keepalive.wal_end = static_cast<Lsn>(in.Int64());
    keepalive.send_time = in.Int64();
    keepalive.reply_requested = in.Byte() != 0;
    return keepalive;
  }
  ThrowMalformed(std::string("replication frame of unknown kind '") + kind + "'");
}

std::string EncodeStandbyStatusUpdate(Lsn received, Lsn flushed, int64_t now, bool reply) {
  std::string out;
  out.reserve(34);
  out.push_back('r');
  auto put = [&out](uint64_t value) {
    for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((value >> shift) & 0xff));
  };
  put(received);
  put(flushed);
  put(flushed);  // applied: silt applies what it flushes
  put(static_cast<uint64_t>(now));
  out.push_back(reply ? 1 : 0);
  return out;
}

PgOutputMessage DecodePgOutput(std::string_view payload) {
  if (payload.empty()) ThrowMalformed("empty pgoutput message");
  char kind = payload[0];
  switch (kind) {
    case 'B': {
      Reader in(payload.substr(1), "Begin");
      BeginMessage begin;
      begin.final_lsn = static_cast<Lsn>(in.Int64());
      begin.commit_time = in.Int64();
      begin.xid = in.UInt32();
      return begin;
    }
    case 'C': {
      Reader in(payload.substr(1), "Commit");
      CommitMessage commit;
      in.Byte();  // flags, unused
      commit.commit_lsn = static_cast<Lsn>(in.Int64());
      commit.end_lsn = static_cast<Lsn>(in.Int64());
      commit.commit_time = in.Int64();
      return commit;
    }
    case 'R': {
      Reader in(payload.substr(1), "Relation");
      RelationMessage relation;
      relation.oid = in.UInt32();
      relation.namespace_name = in.String();
      relation.name = in.String();
      relation.replica_identity = in.Byte();
      int16_t count = in.Int16();
      if (count < 0) ThrowMalformed("Relation with a negative column count");
      relation.columns.resize(static_cast<size_t>(count));
      for (RelationColumn& column : relation.columns) {
        column.is_key = (in.Byte() & 1) != 0;
        column.name = in.String();
        column.type_oid = in.UInt32();
        column.type_modifier = in.Int32();
      }
      return relation;
    }
    case 'I': {
      Reader in(payload.substr(1), "Insert");
      RowMessage row;
      row.kind = 'I';
      row.relation_oid = in.UInt32();
      if (in.Byte() != 'N') ThrowMalformed("Insert without a new tuple");
      row.new_tuple = ReadTuple(in);
      return row;
    }
    case 'U': {
      Reader in(payload.substr(1), "Update");
      RowMessage row;
      row.kind = 'U';
      row.relation_oid = in.UInt32();
      char next = in.Byte();
      if (next == 'K' || next == 'O') {
        row.old_kind = next;
        row.old_tuple = ReadTuple(in);
        next = in.Byte();
      }
      if (next != 'N') ThrowMalformed("Update without a new tuple");
      row.new_tuple = ReadTuple(in);
      return row;
    }
    case 'D': {
      Reader in(payload.substr(1), "Delete");
      RowMessage row;
      row.kind = 'D';
      row.relation_oid = in.UInt32();
      char next = in.Byte();
      if (next != 'K' && next != 'O') ThrowMalformed("Delete without an old tuple");
      row.old_kind = next;
      row.old_tuple = ReadTuple(in);
      return row;
    }
    case 'T': {
      Reader in(payload.substr(1), "Truncate");
      TruncateMessage truncate;
      int32_t count = in.Int32();
      if (count < 0) ThrowMalformed("Truncate with a negative relation count");
      char options = in.Byte();
      truncate.cascade = (options & 1) != 0;
      truncate.restart_identity = (options & 2) != 0;
      for (int32_t i = 0; i < count; ++i) truncate.relation_oids.push_back(in.UInt32());
      return truncate;
    }
    case 'Y':
    case 'O':
    case 'M':
      return IgnoredMessage{kind};
    default:
      ThrowMalformed(std::string("pgoutput message of unknown kind '") + kind + "'");
  }
}

}  // namespace silt::cdc

#include "silt/cdc/replication_protocol.h"

#include <gtest/gtest.h>

#include "silt/error.h"

namespace silt::cdc {
namespace {

// Builds messages byte by byte as the server sends them (big-endian fields).
class Bytes {
 public:
  Bytes& Byte(char c) { data_.push_back(c); return *this; }
  Bytes& Int(uint64_t value, int bytes) {
    for (int shift = (bytes - 1) * 8; shift >= 0; shift -= 8) data_.push_back(static_cast<char>((value >> shift) & 0xff));
    return *this;
  }
  Bytes& Str(const std::string& text) { data_ += text; data_.push_back('\0'); return *this; }
  Bytes& Text(const std::string& value) { Byte('t'); Int(value.size(), 4); data_ += value; return *this; }
  const std::string& str() const { return data_; }

 private:
  std::string data_;
};

std::string ErrorClassOf(std::string_view payload) {
  try {
    DecodePgOutput(payload);
  } catch (const Error& error) {
    return std::string(error.error_class());
  }
  return "no error";
}

TEST(LsnTest, FormatsAndParsesPostgresText) {
  EXPECT_EQ(FormatLsn(0), "0/0");
  EXPECT_EQ(FormatLsn((uint64_t{0x16} << 32) | 0xB374D848), "16/B374D848");
  EXPECT_EQ(ParseLsn("16/B374D848"), (uint64_t{0x16} << 32) | 0xB374D848);
  EXPECT_EQ(ParseLsn("16/b374d848"), (uint64_t{0x16} << 32) | 0xB374D848);
  EXPECT_EQ(ParseLsn("0/0"), 0u);
  EXPECT_FALSE(ParseLsn("16B374D848"));
  EXPECT_FALSE(ParseLsn("/1"));
  EXPECT_FALSE(ParseLsn("1/"));
  EXPECT_FALSE(ParseLsn("1/G"));
  EXPECT_FALSE(ParseLsn("123456789/0"));
}

TEST(ReplicationFrameTest, DecodesXLogDataAndKeepalives) {
  Bytes data;
  data.Byte('w').Int(100, 8).Int(200, 8).Int(300, 8).Str("B");
  auto frame = DecodeReplicationFrame(data.str());
  const auto& xlog = std::get<XLogData>(frame);
  EXPECT_EQ(xlog.wal_start, 100u);
  EXPECT_EQ(xlog.wal_end, 200u);
  EXPECT_EQ(xlog.send_time, 300);
  EXPECT_EQ(xlog.payload, std::string_view("B\0", 2));

  Bytes keepalive;
  keepalive.Byte('k').Int(4096, 8).Int(7, 8).Byte(1);
  auto alive = std::get<PrimaryKeepalive>(DecodeReplicationFrame(keepalive.str()));
  EXPECT_EQ(alive.wal_end, 4096u);
  EXPECT_TRUE(alive.reply_requested);

  Bytes truncated;
  truncated.Byte('k').Int(1, 4);
  EXPECT_THROW(DecodeReplicationFrame(truncated.str()), Error);
  EXPECT_THROW(DecodeReplicationFrame("x"), Error);
}

TEST(ReplicationFrameTest, EncodesStandbyStatusUpdates) {
  std::string update = EncodeStandbyStatusUpdate(0x1122, 0x1100, 5, true);
  ASSERT_EQ(update.size(), 34u);
  EXPECT_EQ(update[0], 'r');
  EXPECT_EQ(static_cast<unsigned char>(update[7]), 0x11);
  EXPECT_EQ(static_cast<unsigned char>(update[8]), 0x22);
  EXPECT_EQ(static_cast<unsigned char>(update[15]), 0x11);  // flushed
  EXPECT_EQ(static_cast<unsigned char>(update[16]), 0x00);
  EXPECT_EQ(update[32], 5);
  EXPECT_EQ(update[33], 1);
}

TEST(PgOutputTest, DecodesTransactionMessages) {
  Bytes begin;
  begin.Byte('B').Int(0x500, 8).Int(1000, 8).Int(42, 4);
  auto b = std::get<BeginMessage>(DecodePgOutput(begin.str()));
  EXPECT_EQ(b.final_lsn, 0x500u);
  EXPECT_EQ(b.commit_time, 1000);
  EXPECT_EQ(b.xid, 42u);

  Bytes commit;
  commit.Byte('C').Byte(0).Int(0x500, 8).Int(0x530, 8).Int(1000, 8);
  auto c = std::get<CommitMessage>(DecodePgOutput(commit.str()));
  EXPECT_EQ(c.commit_lsn, 0x500u);
  EXPECT_EQ(c.end_lsn, 0x530u);
}

TEST(PgOutputTest, DecodesRelationsAndRows) {
  Bytes relation;
  relation.Byte('R').Int(16384, 4).Str("public").Str("customers").Byte('d').Int(2, 2);
  relation.Byte(1).Str("id").Int(23, 4).Int(static_cast<uint32_t>(-1), 4);
  relation.Byte(0).Str("name").Int(25, 4).Int(static_cast<uint32_t>(-1), 4);
  auto r = std::get<RelationMessage>(DecodePgOutput(relation.str()));
  EXPECT_EQ(r.oid, 16384u);
  EXPECT_EQ(r.namespace_name, "public");
  EXPECT_EQ(r.name, "customers");
  ASSERT_EQ(r.columns.size(), 2u);
  EXPECT_TRUE(r.columns[0].is_key);
  EXPECT_FALSE(r.columns[1].is_key);
  EXPECT_EQ(r.columns[1].type_oid, 25u);
  EXPECT_EQ(r.columns[1].type_modifier, -1);

  Bytes insert;
  insert.Byte('I').Int(16384, 4).Byte('N').Int(3, 2).Text("7").Byte('n').Byte('u');
  auto i = std::get<RowMessage>(DecodePgOutput(insert.str()));
  EXPECT_EQ(i.kind, 'I');
  ASSERT_EQ(i.new_tuple.size(), 3u);
  EXPECT_EQ(i.new_tuple[0].kind, TupleValue::Kind::kText);
  EXPECT_EQ(i.new_tuple[0].bytes, "7");
  EXPECT_EQ(i.new_tuple[1].kind, TupleValue::Kind::kNull);
  EXPECT_EQ(i.new_tuple[2].kind, TupleValue::Kind::kUnchangedToast);

  Bytes update;
  update.Byte('U').Int(16384, 4).Byte('K').Int(1, 2).Text("7").Byte('N').Int(1, 2).Text("8");
  auto u = std::get<RowMessage>(DecodePgOutput(update.str()));
  EXPECT_EQ(u.old_kind, 'K');
  EXPECT_EQ(u.old_tuple[0].bytes, "7");
  EXPECT_EQ(u.new_tuple[0].bytes, "8");

  Bytes plain_update;
  plain_update.Byte('U').Int(16384, 4).Byte('N').Int(1, 2).Text("9");
  auto p = std::get<RowMessage>(DecodePgOutput(plain_update.str()));
  EXPECT_EQ(p.old_kind, 0);
  EXPECT_TRUE(p.old_tuple.empty());

  Bytes remove;
  remove.Byte('D').Int(16384, 4).Byte('O').Int(1, 2).Text("9");
  auto d = std::get<RowMessage>(DecodePgOutput(remove.str()));
  EXPECT_EQ(d.kind, 'D');
  EXPECT_EQ(d.old_kind, 'O');

  Bytes truncate;
  truncate.Byte('T').Int(2, 4).Byte(3).Int(1, 4).Int(2, 4);
  auto t = std::get<TruncateMessage>(DecodePgOutput(truncate.str()));
  EXPECT_EQ(t.relation_oids, (std::vector<uint32_t>{1, 2}));
  EXPECT_TRUE(t.cascade);
  EXPECT_TRUE(t.restart_identity);

  Bytes type;
  type.Byte('Y').Int(1, 4).Str("public").Str("mood");
  EXPECT_EQ(std::get<IgnoredMessage>(DecodePgOutput(type.str())).kind, 'Y');
}

TEST(PgOutputTest, RefusesMalformedMessages) {
  EXPECT_EQ(ErrorClassOf(""), "CDC_SOURCE_FAILED");
  EXPECT_EQ(ErrorClassOf("Z"), "CDC_SOURCE_FAILED");
  EXPECT_EQ(ErrorClassOf("B\x01"), "CDC_SOURCE_FAILED");
  Bytes unterminated;
  unterminated.Byte('R').Int(1, 4).Byte('p');
  EXPECT_EQ(ErrorClassOf(unterminated.str()), "CDC_SOURCE_FAILED");
  Bytes long_value;
  long_value.Byte('I').Int(1, 4).Byte('N').Int(1, 2).Byte('t').Int(100, 4).Str("short");
  EXPECT_EQ(ErrorClassOf(long_value.str()), "CDC_SOURCE_FAILED");
  Bytes bad_kind;
  bad_kind.Byte('I').Int(1, 4).Byte('N').Int(1, 2).Byte('x');
  EXPECT_EQ(ErrorClassOf(bad_kind.str()), "CDC_SOURCE_FAILED");
  Bytes no_new;
  no_new.Byte('I').Int(1, 4).Byte('K');
  EXPECT_EQ(ErrorClassOf(no_new.str()), "CDC_SOURCE_FAILED");
}

}  // namespace
}  // namespace silt::cdc

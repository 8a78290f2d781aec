// Gives existing HBase tables a row Bloom filter and the block cache on every column
// family that lacks them.
//
// Tables created through Thrift 1 (happybase's createTable) get the Thrift struct's
// defaults, not HBase's: no Bloom filter and no block cache, so every get reads each
// store file of its region from disk. crawldedup creates its tables with both since
// 2026-12-07; stores created before keep the old families until this is run (by
// `scripts/hbase.sh tune PREFIX`, with the server's own jars, java single-file launch).
// The change is online (the regions reopen); store files written before it get their
// Bloom filters when they are next compacted (`major_compact` in the HBase shell).
//
//   TuneFamilies <table>...
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.regionserver.BloomType;

public class TuneFamilies {
  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: TuneFamilies <table>...");
      System.exit(2);
    }
    Configuration conf = HBaseConfiguration.create();
    try (Connection conn = ConnectionFactory.createConnection(conf);
        Admin admin = conn.getAdmin()) {
      for (String table : args) {
        TableName name = TableName.valueOf(table);
        if (!admin.tableExists(name)) {
          System.out.println(table + ": absent");
          continue;
        }
        int changed = 0;
        for (ColumnFamilyDescriptor family : admin.getDescriptor(name).getColumnFamilies()) {
          boolean bloom = family.getBloomFilterType() != BloomType.NONE;
          if (bloom && family.isBlockCacheEnabled()) {
            continue;
          }
          admin.modifyColumnFamily(
              name,
              ColumnFamilyDescriptorBuilder.newBuilder(family)
                  .setBloomFilterType(bloom ? family.getBloomFilterType() : BloomType.ROW)
                  .setBlockCacheEnabled(true)
                  .build());
          changed++;
        }
        System.out.println(table + ": " + (changed > 0 ? "tuned" : "already tuned"));
      }
    }
  }
}

// Creates HBase tables pre-split into regions at even hex key boundaries.
//
// The index tables' row keys are md5 hex (or a SimHash block in hex), spread evenly
// over the hex key space, so N regions split at "10", "20", ... take equal shares
// of every day's reads and writes from the first day on; a new table would otherwise
// sit in one region until it grows big enough to split. Happybase speaks Thrift 1,
// whose createTable takes no split keys, hence this small Admin client, run by
// `scripts/hbase.sh presplit` with the server's own jars (java single-file launch).
//
//   PreSplit <regions> <family> <table>...
//
// Existing tables are left as they are (their region count is printed).
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

public class PreSplit {
  // The same boundaries as crawldedup's Bloom key ranges: round(i * 256 / n) as 2 hex digits.
  static byte[][] splitKeys(int regions) {
    List<byte[]> keys = new ArrayList<>();
    for (int i = 1; i < regions; i++) {
      keys.add(Bytes.toBytes(String.format("%02x", Math.round(i * 256.0 / regions))));
    }
    return keys.toArray(new byte[0][]);
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: PreSplit <regions 1..256> <family> <table>...");
      System.exit(2);
    }
    int regions = Integer.parseInt(args[0]);
    if (regions < 1 || regions > 256) {
      System.err.println("PreSplit: regions must be in 1..256, got " + regions);
      System.exit(2);
    }
    String family = args[1];
    Configuration conf = HBaseConfiguration.create();
    try (Connection conn = ConnectionFactory.createConnection(conf);
        Admin admin = conn.getAdmin()) {
      for (int i = 2; i < args.length; i++) {
        TableName name = TableName.valueOf(args[i]);
        if (!admin.tableExists(name)) {
          admin.createTable(
              TableDescriptorBuilder.newBuilder(name)
                  .setColumnFamily(
                      ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes(family))
                          .setMaxVersions(1)
                          .build())
                  .build(),
              splitKeys(regions));
        }
        System.out.println(args[i] + ": " + admin.getRegions(name).size() + " regions");
      }
    }
  }
}

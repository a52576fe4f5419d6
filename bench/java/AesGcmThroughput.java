/*
 * AES-256-GCM encryption throughput of this JVM in one thread, 16 KiB at a time (a full TLS
 * record, what a broker's SSLEngine seals when it sends a fetch response), as JDK's TLS 1.3
 * TLS_AES_256_GCM_SHA384 uses it. Compare the JIT settings a Kafka JVM runs with:
 *   java -XX:TieredStopAtLevel=1 bench/java/AesGcmThroughput.java   # C1 only (test/support/kafka)
 *   java bench/java/AesGcmThroughput.java                           # C1 then C2 (the JVM's default)
 * (C2 replaces AESCrypt and GHASH with AES-NI/CLMUL intrinsics; C1 runs their Java code.)
 */
import java.nio.ByteBuffer;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

public class AesGcmThroughput {
  public static void main(String[] args) throws Exception {
    SecretKeySpec key = new SecretKeySpec(new byte[32], "AES");
    Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
    byte[] in = new byte[16384];
    byte[] out = new byte[in.length + 16];
    byte[] nonce = new byte[12];
    long counter = 0;
    for (int second = 1; second <= 6; second++) {
      long start = System.nanoTime();
      long bytes = 0;
      while (System.nanoTime() - start < 1_000_000_000L) {
        // A fresh nonce per record, as TLS does (GCM refuses to reuse one with the same key).
        ByteBuffer.wrap(nonce).putLong(4, counter++);
        cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, nonce));
        bytes += cipher.doFinal(in, 0, in.length, out, 0) - 16;
      }
      System.out.printf("second %d: %.0f MB/s%n", second, bytes / 1e6 / ((System.nanoTime() - start) / 1e9));
    }
  }
}

package io.nodegate.source.tls;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Just enough DER to re-wrap PKCS#1 and SEC1 private keys into PKCS#8, which is all the JDK's KeyFactory
 * reads. Writing a handful of TLVs is cheaper than a BouncyCastle dependency for two key formats.
 */
final class Der {
    static final int INTEGER = 0x02;
    static final int OCTET_STRING = 0x04;
    static final int NULL = 0x05;
    static final int OID = 0x06;
    static final int SEQUENCE = 0x30;
    /** SEC1 ECPrivateKey: parameters [0] EXPLICIT ECParameters (the named curve OID). */
    static final int CONTEXT_0 = 0xA0;

    /** rsaEncryption */
    static final byte[] RSA_ENCRYPTION_OID = {0x2A, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xF7, 0x0D, 0x01, 0x01, 0x01};
    /** id-ecPublicKey */
    static final byte[] EC_PUBLIC_KEY_OID = {0x2A, (byte) 0x86, 0x48, (byte) 0xCE, 0x3D, 0x02, 0x01};

    private Der() {
    }

    /** One decoded TLV: its tag, the content bytes, and the whole encoding (tag+length+content). */
    record Tlv(int tag, byte[] content, byte[] encoded) {
    }

    static byte[] tlv(int tag, byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
        out.write(tag);
        int len = content.length;
        if (len < 0x80) {
            out.write(len);
        } else {
            int bytes = len > 0xFFFFFF ? 4 : len > 0xFFFF ? 3 : len > 0xFF ? 2 : 1;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                out.write((len >>> (8 * i)) & 0xFF);
            }
        }
        out.writeBytes(content);
        return out.toByteArray();
    }

    static byte[] sequence(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return tlv(SEQUENCE, out.toByteArray());
    }

    /** PKCS#8 PrivateKeyInfo: SEQUENCE{INTEGER 0, AlgorithmIdentifier, OCTET STRING{key}}. */
    static byte[] privateKeyInfo(byte[] algorithmIdentifier, byte[] innerKey) {
        return sequence(tlv(INTEGER, new byte[]{0}), algorithmIdentifier, tlv(OCTET_STRING, innerKey));
    }

    /** Decodes the TLVs directly inside {@code data} (one level). Throws IllegalArgumentException on malformed DER. */
    static List<Tlv> children(byte[] data) {
        List<Tlv> out = new ArrayList<>();
        int pos = 0;
        while (pos < data.length) {
            int start = pos;
            if (pos + 2 > data.length) {
                throw new IllegalArgumentException("truncated DER");
            }
            int tag = data[pos++] & 0xFF;
            int len = data[pos++] & 0xFF;
            if (len >= 0x80) {
                int bytes = len & 0x7F;
                if (bytes == 0 || bytes > 4 || pos + bytes > data.length) {
                    throw new IllegalArgumentException("bad DER length");
                }
                len = 0;
                for (int i = 0; i < bytes; i++) {
                    len = (len << 8) | (data[pos++] & 0xFF);
                }
            }
            if (len < 0 || pos + len > data.length) {
                throw new IllegalArgumentException("DER length runs past the end");
            }
            byte[] content = java.util.Arrays.copyOfRange(data, pos, pos + len);
            pos += len;
            out.add(new Tlv(tag, content, java.util.Arrays.copyOfRange(data, start, pos)));
        }
        return out;
    }

    /** The single top-level TLV of {@code data}, which must be a SEQUENCE. */
    static Tlv topSequence(byte[] data) {
        List<Tlv> top = children(data);
        if (top.size() != 1 || top.get(0).tag() != SEQUENCE) {
            throw new IllegalArgumentException("not a single DER SEQUENCE");
        }
        return top.get(0);
    }
}

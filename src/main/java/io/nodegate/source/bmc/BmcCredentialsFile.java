package io.nodegate.source.bmc;

import io.nodegate.InputException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import io.nodegate.source.InputFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

/**
 * Reads BMC credentials in the shape of a {@code kubernetes.io/basic-auth} Secret, so the file an operator keeps and
 * the Secret the watch reads are the same thing. Accepted (YAML or JSON):
 * <ul>
 *   <li>the Secret itself, {@code type: kubernetes.io/basic-auth} with {@code stringData} or base64 {@code data}
 *   holding {@code username} and {@code password} (the keys k8s.io/api core/v1 types.go names
 *   BasicAuthUsernameKey and BasicAuthPasswordKey);</li>
 *   <li>just the two keys: {@code username: ...} and {@code password: ...};</li>
 *   <li>such a Secret mounted as a volume (the watch's way): a directory with the files {@code username} and
 *   {@code password}, their bytes taken as they are (a trailing newline is part of the password).</li>
 * </ul>
 * No message ever quotes the file's contents: a parser error names the line, never the text around it.
 */
public final class BmcCredentialsFile {

    /** SecretTypeBasicAuth in k8s.io/api core/v1 types.go. */
    public static final String BASIC_AUTH_TYPE = "kubernetes.io/basic-auth";

    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    private BmcCredentialsFile() {
    }

    /** @param flag how messages name where the file was given (e.g. "--bmc-credentials") */
    public static BmcCredentials read(Path file, String flag) {
        String what = flag + " " + file;
        if (Files.isDirectory(file)) {
            return new BmcCredentials(mounted(file, "username", what), mounted(file, "password", what), what);
        }
        // the bounded reader: a regular file only (a FIFO here would hang the gate), size and time capped
        String text = InputFiles.readString(file, flag, InputFiles.SMALL);
        JsonNode doc;
        try {
            doc = YAML.readTree(text);
        } catch (JacksonException e) {
            var at = e.getLocation();
            // the parser's own message quotes the text around the error, which may be the password
            throw new InputException(what + ": not valid YAML or JSON" + (at == null || at.getLineNr() <= 0 ? ""
                    : " (line " + at.getLineNr() + ")"));
        }
        return fromDocument(doc, what);
    }

    /** One key of a Secret mounted as a volume: the file of that name, as the kubelet wrote it. */
    private static String mounted(Path dir, String key, String what) {
        Path file = dir.resolve(key);
        if (!Files.exists(file)) {
            throw new InputException(what + ": a directory without the file " + key + " (a mounted "
                    + BASIC_AUTH_TYPE + " Secret has username and password)");
        }
        // the kubelet writes each key as a symlink into ..data; the bounded reader follows it to a regular file
        String value = InputFiles.readString(file, what + ":", InputFiles.SMALL);
        if (value.isEmpty()) {
            throw new InputException(what + ": the file " + key + " is empty");
        }
        return value;
    }

    /** The credentials a parsed Secret (or bare mapping) holds; {@code what} names it in messages. */
    public static BmcCredentials fromDocument(JsonNode doc, String what) {
        if (doc == null || !doc.isObject()) {
            throw new InputException(what + ": expected a kubernetes.io/basic-auth Secret or a mapping with "
                    + "username and password");
        }
        if (doc.has("kind") || doc.has("data") || doc.has("stringData")) {
            if (doc.has("kind") && !"Secret".equals(doc.path("kind").asString(""))) {
                throw new InputException(what + ": kind " + doc.path("kind").asString("") + ", expected a Secret");
            }
            String type = doc.path("type").asString("");
            if (!type.isEmpty() && !BASIC_AUTH_TYPE.equals(type)) {
                throw new InputException(what + ": a Secret of type " + type + ", expected " + BASIC_AUTH_TYPE);
            }
            String user = key(doc, "username", what);
            String password = key(doc, "password", what);
            return new BmcCredentials(user, password, what);
        }
        return new BmcCredentials(plain(doc, "username", what), plain(doc, "password", what), what);
    }

    /** stringData wins over data, as the API server merges them. */
    private static String key(JsonNode secret, String key, String what) {
        JsonNode s = secret.path("stringData").path(key);
        if (s.isString() && !s.asString().isEmpty()) {
            return s.asString();
        }
        JsonNode d = secret.path("data").path(key);
        if (d.isString() && !d.asString().isEmpty()) {
            try {
                byte[] bytes = Base64.getDecoder().decode(d.asString().replaceAll("\\s", ""));
                return new String(bytes, StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw new InputException(what + ": data." + key + " is not base64");
            }
        }
        throw new InputException(what + ": the Secret has no " + key + " (in stringData or data)");
    }

    private static String plain(JsonNode doc, String key, String what) {
        JsonNode v = doc.path(key);
        if (!v.isString() || v.asString().isEmpty()) {
            throw new InputException(what + ": no " + key + " (expected username: and password: keys, or a "
                    + BASIC_AUTH_TYPE + " Secret)");
        }
        return v.asString();
    }
}

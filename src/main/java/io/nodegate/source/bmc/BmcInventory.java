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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A list of BMCs, with optional per-BMC credentials (--bmc-inventory). YAML or JSON:
 * <pre>
 * bmcs:
 * - https://10.0.30.7                     # read with --bmc-credentials
 * - url: https://10.0.30.8
 *   credentials: rack-b.yaml              # a basic-auth Secret file, relative to this inventory
 * - url: https://10.0.30.9
 *   credentials: /etc/nodegate/bmc-rack-c # the watch: that Secret mounted as a volume (a directory)
 * </pre>
 * No binding is written here: which Node a BMC's system is, nodegate finds by the system's UUID.
 */
public final class BmcInventory {

    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    private BmcInventory() {
    }

    /**
     * @param url             the BMC's base URL
     * @param credentialsFile its own credentials (a file, or a mounted Secret's directory; resolved against the
     *                        inventory's directory), or null
     */
    public record Entry(String url, Path credentialsFile) {
    }

    public static List<Entry> read(Path file) {
        String what = "--bmc-inventory " + file;
        JsonNode doc;
        try {
            // the bounded reader: a regular file only, size and time capped
            doc = YAML.readTree(InputFiles.readString(file, "--bmc-inventory", InputFiles.SMALL));
        } catch (JacksonException e) {
            var at = e.getLocation();
            throw new InputException(what + ": not valid YAML or JSON" + (at == null || at.getLineNr() <= 0 ? ""
                    : " (line " + at.getLineNr() + ")"));
        }
        JsonNode list = doc == null ? null : doc.get("bmcs");
        if (list == null || !list.isArray()) {
            throw new InputException(what + ": expected a list under 'bmcs:' (each an https:// URL, or url: with "
                    + "credentials: FILE)");
        }
        if (list.isEmpty()) {
            throw new InputException(what + ": the list under 'bmcs:' is empty");
        }
        Path dir = file.toAbsolutePath().getParent();
        List<Entry> entries = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        int i = 0;
        for (JsonNode item : list) {
            String where = what + " bmcs[" + i++ + "]";
            Entry entry;
            if (item.isString()) {
                entry = new Entry(BmcTarget.baseUrl(item.asString(), where), null);
            } else if (item.isObject()) {
                for (var name : item.propertyNames()) {
                    if (!List.of("url", "credentials").contains(name)) {
                        throw new InputException(where + ": unknown key '" + name + "' (url, credentials)");
                    }
                }
                String url = BmcTarget.baseUrl(item.path("url").asString(""), where + ".url");
                String credentials = item.path("credentials").asString(null);
                entry = new Entry(url, credentials == null ? null : dir.resolve(credentials));
            } else {
                throw new InputException(where + ": expected an https:// URL or a mapping with url:");
            }
            if (!seen.add(entry.url())) {
                throw new InputException(where + ": " + entry.url() + " is listed twice");
            }
            entries.add(entry);
        }
        return entries;
    }
}

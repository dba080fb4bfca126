package io.nodegate.source;

import io.nodegate.InputException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.util.JsonParserDelegate;
import tools.jackson.dataformat.yaml.YAMLParser;

import java.util.function.Function;

/**
 * Jackson's YAML tree reader does not resolve aliases: {@code server: *t} arrives as the string "t", and a report
 * built on it would be wrong without a sign of it. kubectl never writes anchors or aliases, nor do the RKE2/k3s
 * config files in the field, so an alias is refused with its line rather than read wrong. One rule for every YAML
 * nodegate reads (dumps, config.yaml, kubelet.conf).
 */
public final class YamlAliases {

    private YamlAliases() {
    }

    /**
     * A parser that throws at the first alias. {@code refusal} turns the message into the caller's exception
     * (an input error for a dump given with -f, a collection error for a host file).
     */
    public static JsonParser refusing(JsonParser parser, String where, Function<String, RuntimeException> refusal) {
        return new JsonParserDelegate(parser) {
            @Override
            public JsonToken nextToken() {
                JsonToken token = super.nextToken();
                if (delegate() instanceof YAMLParser yaml && yaml.isCurrentAlias()) {
                    TokenStreamLocation loc = yaml.currentLocation();
                    throw refusal.apply(where + ": YAML alias *" + yaml.getString() + " at line " + loc.getLineNr()
                            + ": nodegate does not resolve YAML anchors and aliases (kubectl and RKE2/k3s never write "
                            + "them); write the value out");
                }
                return token;
            }
        };
    }

    /** The input-error form used for files the user names (-f). */
    public static JsonParser refusing(JsonParser parser, String where) {
        return refusing(parser, where, InputException::new);
    }
}

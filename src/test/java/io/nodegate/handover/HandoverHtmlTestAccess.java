package io.nodegate.handover;

/** The rich hand-over record of {@link HandoverHtmlTest}, for the layout test in another package. */
public final class HandoverHtmlTestAccess {

    private HandoverHtmlTestAccess() {
    }

    public static NodeHandover richRecord() {
        return HandoverHtmlTest.richRecord();
    }
}

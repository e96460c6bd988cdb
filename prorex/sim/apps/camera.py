"""Camera: a shutter that adds a photo stamped with the virtual clock."""

from __future__ import annotations

from prorex.sim.apps.common import App, icon
from prorex.sim.render import Page, Row, W
from prorex.sim.state import Photo

APP = App(key="camera", name="Camera", package="com.prorex.camera", main="viewfinder")


@APP.page
def page_viewfinder(phone, scr) -> Page:
    def shoot() -> None:
        now = phone.state.now()
        phone.state.photos.append(Photo(name=now.strftime("IMG_%Y%m%d_%H%M%S.jpg"),
                                        taken=now.strftime("%Y-%m-%d %H:%M:%S")))
        phone.tick(1)

    bar = Row([icon("Gallery", lambda: phone.launch("gallery", resume=False), rid="thumbnail"),
               icon("Take photo", shoot, rid="shutter_button"),
               icon("Switch to front camera", None, rid="camera_switch")],
              layout="hbox", height=300, rid="bottom_bar", key="bar")
    return Page(package=APP.package, activity=APP.activity("CameraActivity"), title=None,
                header=[Row([W("image", desc="Viewfinder", rid="preview")], layout="hbox", height=1500,
                            key="preview")],
                footer=[bar])

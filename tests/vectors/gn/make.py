#!/usr/bin/env python3
"""Makes tests/vectors/gn/flexstack.json: GeoNetworking packets built by FlexStack.

Needs FlexStack (AGPL; a test-time dependency only, none of its code is in VSS):

    python3 -m venv /tmp/fsvenv && /tmp/fsvenv/bin/pip install v2xflexstack==0.11.2
    /tmp/fsvenv/bin/python tests/vectors/gn/make.py > tests/vectors/gn/flexstack.json

Every packet comes out of FlexStack's own GeoNetworking router (`flexstack.geonet.router`)
and BTP router through a link layer that records what it is asked to send, except the
multi-hop TSB, which FlexStack's router does not originate: that one is assembled from
FlexStack's header encoders. Each entry lists the values FlexStack was given, which the
Rust test `crates/vss-gn/tests/flexstack.rs` checks after decoding."""
import contextlib
import json
import sys

from flexstack.btp.btp_header import BTPBHeader
from flexstack.btp.router import Router as BTPRouter
from flexstack.btp.service_access_point import BTPDataRequest
from flexstack.facilities.ca_basic_service.cam_coder import CAMCoder
from flexstack.facilities.ca_basic_service.cam_transmission_management import (
    CooperativeAwarenessMessage,
)
from flexstack.facilities.decentralized_environmental_notification_service.denm_coder import (
    DENMCoder,
)
from flexstack.facilities.decentralized_environmental_notification_service.denm_transmission_management import (
    DecentralizedEnvironmentalNotificationMessage,
)
from flexstack.geonet.basic_header import BasicHeader, BasicNH, LT
from flexstack.geonet.common_header import CommonHeader
from flexstack.geonet.gn_address import GNAddress, M, MID, ST
from flexstack.geonet.mib import MIB
from flexstack.geonet.position_vector import LongPositionVector, TST
from flexstack.geonet.router import Router as GNRouter
from flexstack.geonet.service_access_point import (
    Area,
    CommonNH,
    GeoAnycastHST,
    GeoBroadcastHST,
    GNDataRequest,
    HeaderType,
    PacketTransportType,
    TopoBroadcastHST,
    TrafficClass,
)
from flexstack.geonet.tsb_extended_header import TSBExtendedHeader
from flexstack.linklayer.link_layer import LinkLayer
from flexstack.utils.time_service import TimeService

NOW = 1_790_000_000  # the stations' clock, fixed so the vectors are reproducible (2026-09-21)
TST_MS = TST().set_in_normal_timestamp_seconds(NOW).msec
A_MID = bytes.fromhex("02a1b2c3d4e5")
B_MID = bytes.fromhex("02f0e1d2c3b4")
A_LAT, A_LON = 413_872_340, 21_158_950  # 41.387234 N, 2.115895 E
B_LAT, B_LON = 413_880_000, 21_160_000


class Recorder(LinkLayer):
    """FlexStack's link-layer interface, keeping every packet the router sends."""

    def __init__(self):
        super().__init__(lambda _packet: None)
        self.sent = []

    def send(self, packet: bytes) -> None:
        self.sent.append(bytes(packet))


def station(mid: bytes, lat: int, lon: int, st: ST):
    """A FlexStack GN router (security off, no beacon thread) and its BTP router."""
    address = GNAddress(m=M.GN_UNICAST, st=st, mid=MID(mid))
    router = GNRouter(MIB(itsGnLocalGnAddr=address))
    router.link_layer = Recorder()
    router.ego_position_vector = LongPositionVector(
        gn_addr=address, tst=TST(TST_MS), latitude=lat, longitude=lon, pai=True, s=1389, h=2705
    )
    btp = BTPRouter(router)
    btp.freeze_callbacks()
    return router, btp


def last(router) -> str:
    return router.link_layer.sent[-1].hex()


def pv(lat, lon, mid, st):
    return {"mid": mid.hex(), "station_type": st.value, "tst": TST_MS, "lat": lat, "lon": lon}


def main() -> None:
    with contextlib.redirect_stdout(sys.stderr):  # FlexStack prints its warnings
        vectors = build()
    json.dump({"source": "FlexStack v2xflexstack==0.11.2 (PyPI), tests/vectors/gn/make.py",
               "vectors": vectors}, sys.stdout, indent=1)
    sys.stdout.write("\n")


def build() -> list:
    TimeService.time = staticmethod(lambda: float(NOW))
    a, a_btp = station(A_MID, A_LAT, A_LON, ST.PASSENGER_CAR)
    b, _ = station(B_MID, B_LAT, B_LON, ST.BUS)
    src = dict(pv(A_LAT, A_LON, A_MID, ST.PASSENGER_CAR), pai=True, speed=1389, heading=2705)
    vectors = []

    cam = CooperativeAwarenessMessage()
    cam.cam["header"]["stationId"] = 4242
    cam.cam["cam"]["camParameters"]["basicContainer"]["referencePosition"]["latitude"] = A_LAT
    cam.cam["cam"]["camParameters"]["basicContainer"]["referencePosition"]["longitude"] = A_LON
    cam_bytes = CAMCoder().encode(cam.cam)
    a_btp.btp_data_request(BTPDataRequest(
        btp_type=CommonNH.BTP_B, destination_port=2001, destination_port_info=0,
        gn_packet_transport_type=PacketTransportType(), traffic_class=TrafficClass(tc_id=2),
        gn_max_packet_lifetime=1.0, its_aid=36, data=cam_bytes, length=len(cam_bytes)))
    vectors.append({"name": "shb_cam", "hex": last(a), "kind": "shb", "rhl": 1, "lt_ms": 1000,
                    "next": "btp-b", "tc": 2, "mhl": 1, "source": src,
                    "btp": {"type": "b", "dst": 2001, "info": 0}, "payload": cam_bytes.hex()})

    denm = DecentralizedEnvironmentalNotificationMessage()
    denm.denm["denm"]["management"]["eventPosition"]["latitude"] = A_LAT
    denm.denm["denm"]["management"]["eventPosition"]["longitude"] = A_LON
    denm_bytes = DENMCoder().encode(denm.denm)
    a_btp.btp_data_request(BTPDataRequest(
        btp_type=CommonNH.BTP_B, destination_port=2002,
        gn_packet_transport_type=PacketTransportType(
            header_type=HeaderType.GEOBROADCAST, header_subtype=GeoBroadcastHST.GEOBROADCAST_CIRCLE),
        gn_area=Area(latitude=A_LAT, longitude=A_LON, a=100, b=0, angle=0),
        its_aid=37, data=denm_bytes, length=len(denm_bytes)))
    vectors.append({"name": "gbc_denm", "hex": last(a), "kind": "gbc", "shape": "circle",
                    "sn": 1, "rhl": 10, "lt_ms": 60000, "next": "btp-b", "tc": 0, "mhl": 10,
                    "source": src, "area": {"lat": A_LAT, "lon": A_LON, "a": 100, "b": 0, "angle": 0},
                    "btp": {"type": "b", "dst": 2002, "info": 0}, "payload": denm_bytes.hex()})

    app = b"GAC from FlexStack"
    a_btp.btp_data_request(BTPDataRequest(
        btp_type=CommonNH.BTP_A, destination_port=2009, source_port=4100,
        gn_packet_transport_type=PacketTransportType(
            header_type=HeaderType.GEOANYCAST, header_subtype=GeoAnycastHST.GEOANYCAST_RECT),
        gn_area=Area(latitude=A_LAT, longitude=A_LON, a=300, b=200, angle=45),
        gn_max_hop_limit=5, traffic_class=TrafficClass(channel_offload=True, tc_id=3),
        gn_max_packet_lifetime=20.0, data=app, length=len(app)))
    vectors.append({"name": "gac_rect", "hex": last(a), "kind": "gac", "shape": "rectangle",
                    "sn": 2, "rhl": 5, "lt_ms": 20000, "next": "btp-a", "tc": 0x43, "mhl": 5,
                    "source": src,
                    "area": {"lat": A_LAT, "lon": A_LON, "a": 300, "b": 200, "angle": 45},
                    "btp": {"type": "a", "dst": 2009, "src": 4100}, "payload": app.hex()})

    b.gn_data_request_beacon()
    beacon = b.link_layer.sent[-1]
    vectors.append({"name": "beacon", "hex": beacon.hex(), "kind": "beacon", "rhl": 1,
                    "lt_ms": 60000, "next": "any", "tc": 0, "mhl": 1,
                    "source": dict(pv(B_LAT, B_LON, B_MID, ST.BUS), pai=True, speed=1389,
                                   heading=2705)})

    a.gn_data_indicate(beacon)  # B becomes A's neighbour: a GUC can find it
    app = b"GUC from FlexStack"
    a.gn_data_request(GNDataRequest(
        upper_protocol_entity=CommonNH.BTP_B,
        packet_transport_type=PacketTransportType(header_type=HeaderType.GEOUNICAST),
        destination=b.mib.itsGnLocalGnAddr, max_hop_limit=3,
        data=BTPBHeader(destination_port=2006, destination_port_info=7).encode() + app,
        length=4 + len(app)))
    vectors.append({"name": "guc", "hex": last(a), "kind": "guc", "sn": 3, "rhl": 3,
                    "lt_ms": 60000, "next": "btp-b", "tc": 0, "mhl": 3, "source": src,
                    "destination": pv(B_LAT, B_LON, B_MID, ST.BUS),
                    "btp": {"type": "b", "dst": 2006, "info": 7}, "payload": app.hex()})

    sought = GNAddress(m=M.GN_UNICAST, st=ST.BUS, mid=MID(B_MID))
    a.location_table.loc_t.clear()  # A forgets B: its LS starts afresh
    a.gn_ls_request(sought)
    for timer in a._ls_timers.values():
        timer.cancel()
    ls_request = a.link_layer.sent[-1]
    vectors.append({"name": "ls_request", "hex": ls_request.hex(), "kind": "ls_request",
                    "sn": 4, "rhl": 10, "lt_ms": 60000, "next": "any", "tc": 0, "mhl": 10,
                    "source": src, "request": {"mid": B_MID.hex(), "station_type": ST.BUS.value}})

    b.gn_data_indicate(ls_request)
    vectors.append({"name": "ls_reply", "hex": last(b), "kind": "ls_reply", "sn": 1,
                    "rhl": 10, "lt_ms": 60000, "next": "any", "tc": 0, "mhl": 10,
                    "source": dict(pv(B_LAT, B_LON, B_MID, ST.BUS), pai=True, speed=1389,
                                   heading=2705),
                    "destination": pv(A_LAT, A_LON, A_MID, ST.PASSENGER_CAR)})

    app = b"TSB from FlexStack"
    data = BTPBHeader(destination_port=2004, destination_port_info=0).encode() + app
    tsb = (
        BasicHeader(version=1, nh=BasicNH.COMMON_HEADER, lt=LT().set_value_in_seconds(5), rhl=4).encode_to_bytes()
        + CommonHeader(nh=CommonNH.BTP_B, ht=HeaderType.TSB, hst=TopoBroadcastHST.MULTI_HOP,
                       tc=TrafficClass(tc_id=1), flags=0x80, pl=len(data), mhl=4).encode_to_bytes()
        + TSBExtendedHeader(sn=77, so_pv=a.ego_position_vector).encode()
        + data
    )
    vectors.append({"name": "tsb", "hex": tsb.hex(), "kind": "tsb", "sn": 77, "rhl": 4,
                    "lt_ms": 5000, "next": "btp-b", "tc": 1, "mhl": 4, "source": src,
                    "btp": {"type": "b", "dst": 2004, "info": 0}, "payload": app.hex()})

    return vectors


if __name__ == "__main__":
    main()

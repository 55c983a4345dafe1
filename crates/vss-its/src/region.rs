//! Geographic regions (1609.2 6.4.17–6.4.22): whether a location lies in a region and
//! whether one region lies inside another.
//!
//! Circles, rectangles and polygons are compared by geometry on a spherical Earth (a
//! circle inside a polygon or rectangle by 36 points of its circumference). Identified
//! regions (UN country and region codes) are compared by their codes; whether a point or a
//! shape lies inside a country cannot be told without the country's borders, so those
//! questions answer `None`, and the validator lets them pass.

use crate::asn::{
    CircularRegion, GeographicRegion, IdentifiedRegion, RectangularRegion, TwoDLocation,
};

/// The mean Earth radius in metres.
const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// A location in degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Latitude, degrees north.
    pub lat: f64,
    /// Longitude, degrees east.
    pub lon: f64,
}

impl Point {
    /// From 1609.2's tenths of a microdegree.
    pub fn from_asn(location: &TwoDLocation) -> Self {
        Self::from_units(*location.latitude.0, location.longitude.0 .0)
    }

    /// From latitude and longitude in tenths of a microdegree.
    pub fn from_units(lat: i32, lon: i32) -> Self {
        Point {
            lat: f64::from(lat) / 1e7,
            lon: f64::from(lon) / 1e7,
        }
    }

    fn distance_m(self, other: Point) -> f64 {
        let (p1, p2) = (self.lat.to_radians(), other.lat.to_radians());
        let dp = p2 - p1;
        let dl = (other.lon - self.lon).to_radians();
        let a = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
        2.0 * EARTH_RADIUS_M * a.sqrt().min(1.0).asin()
    }

    /// The point `distance` metres away on `bearing` degrees.
    fn towards(self, bearing: f64, distance: f64) -> Point {
        let (p1, l1, b) = (
            self.lat.to_radians(),
            self.lon.to_radians(),
            bearing.to_radians(),
        );
        let d = distance / EARTH_RADIUS_M;
        let p2 = (p1.sin() * d.cos() + p1.cos() * d.sin() * b.cos()).asin();
        let l2 = l1 + (b.sin() * d.sin() * p1.cos()).atan2(d.cos() - p1.sin() * p2.sin());
        Point {
            lat: p2.to_degrees(),
            lon: l2.to_degrees(),
        }
    }
}

fn in_circle(c: &CircularRegion, p: Point) -> bool {
    Point::from_asn(&c.center).distance_m(p) <= f64::from(c.radius)
}

fn in_rectangle(r: &RectangularRegion, p: Point) -> bool {
    let (nw, se) = (
        Point::from_asn(&r.north_west),
        Point::from_asn(&r.south_east),
    );
    se.lat <= p.lat && p.lat <= nw.lat && nw.lon <= p.lon && p.lon <= se.lon
}

/// Ray casting; a point on an edge counts as inside.
fn in_polygon(vertices: &[TwoDLocation], p: Point) -> bool {
    let points: Vec<Point> = vertices.iter().map(Point::from_asn).collect();
    let mut inside = false;
    for (i, a) in points.iter().enumerate() {
        let b = points[(i + 1) % points.len()];
        let cross = (b.lon - a.lon) * (p.lat - a.lat) - (b.lat - a.lat) * (p.lon - a.lon);
        let within = p.lat >= a.lat.min(b.lat)
            && p.lat <= a.lat.max(b.lat)
            && p.lon >= a.lon.min(b.lon)
            && p.lon <= a.lon.max(b.lon);
        if cross.abs() < 1e-12 && within {
            return true;
        }
        if (a.lat > p.lat) != (b.lat > p.lat) {
            let lon_at = a.lon + (p.lat - a.lat) * (b.lon - a.lon) / (b.lat - a.lat);
            if p.lon < lon_at {
                inside = !inside;
            }
        }
    }
    inside
}

/// Whether a location lies in a region; `None` for identified regions (borders unknown).
pub fn contains_point(region: &GeographicRegion, p: Point) -> Option<bool> {
    match region {
        GeographicRegion::CircularRegion(c) => Some(in_circle(c, p)),
        GeographicRegion::RectangularRegion(rs) => Some(rs.0.iter().any(|r| in_rectangle(r, p))),
        GeographicRegion::PolygonalRegion(poly) => Some(in_polygon(&poly.0, p)),
        _ => None,
    }
}

/// Points of a geometric region that must all lie in an enclosing region.
fn outline(region: &GeographicRegion) -> Option<Vec<Point>> {
    match region {
        GeographicRegion::CircularRegion(c) => {
            let center = Point::from_asn(&c.center);
            let mut points = vec![center];
            points
                .extend((0..36).map(|i| center.towards(f64::from(i) * 10.0, f64::from(c.radius))));
            Some(points)
        }
        GeographicRegion::RectangularRegion(rs) => Some(
            rs.0.iter()
                .flat_map(|r| {
                    let (nw, se) = (
                        Point::from_asn(&r.north_west),
                        Point::from_asn(&r.south_east),
                    );
                    [
                        nw,
                        se,
                        Point {
                            lat: nw.lat,
                            lon: se.lon,
                        },
                        Point {
                            lat: se.lat,
                            lon: nw.lon,
                        },
                    ]
                })
                .collect(),
        ),
        GeographicRegion::PolygonalRegion(poly) => {
            Some(poly.0.iter().map(Point::from_asn).collect())
        }
        _ => None,
    }
}

/// Whether an identified region is covered by a list of identified regions.
fn identified_covered(inner: &IdentifiedRegion, outer: &[IdentifiedRegion]) -> bool {
    let country = |r: &IdentifiedRegion| match r {
        IdentifiedRegion::CountryOnly(c) => Some(c.0),
        IdentifiedRegion::CountryAndRegions(c) => Some(c.country_only.0),
        IdentifiedRegion::CountryAndSubregions(c) => Some(c.country_only.0),
        _ => None,
    };
    let Some(inner_country) = country(inner) else {
        return false;
    };
    let regions_of = |r: &IdentifiedRegion| -> Vec<u8> {
        match r {
            IdentifiedRegion::CountryAndRegions(c) => c.regions.0.clone(),
            IdentifiedRegion::CountryAndSubregions(c) => {
                c.region_and_subregions.0.iter().map(|s| s.region).collect()
            }
            _ => Vec::new(),
        }
    };
    outer
        .iter()
        .filter(|o| country(o) == Some(inner_country))
        .any(|o| match (o, inner) {
            (IdentifiedRegion::CountryOnly(_), _) => true,
            (IdentifiedRegion::CountryAndRegions(c), _) => {
                !matches!(inner, IdentifiedRegion::CountryOnly(_))
                    && regions_of(inner).iter().all(|r| c.regions.0.contains(r))
            }
            (
                IdentifiedRegion::CountryAndSubregions(c),
                IdentifiedRegion::CountryAndSubregions(i),
            ) => i.region_and_subregions.0.iter().all(|ir| {
                c.region_and_subregions.0.iter().any(|or| {
                    or.region == ir.region
                        && ir.subregions.0.iter().all(|s| or.subregions.0.contains(s))
                })
            }),
            _ => false,
        })
}

/// Whether `inner` lies inside `outer`; `None` when a geometric region meets an identified
/// one (borders unknown).
pub fn contains_region(outer: &GeographicRegion, inner: &GeographicRegion) -> Option<bool> {
    match (outer, inner) {
        (GeographicRegion::IdentifiedRegion(o), GeographicRegion::IdentifiedRegion(i)) => {
            Some(i.0.iter().all(|r| identified_covered(r, &o.0)))
        }
        (GeographicRegion::CircularRegion(o), GeographicRegion::CircularRegion(i)) => Some(
            Point::from_asn(&o.center).distance_m(Point::from_asn(&i.center)) + f64::from(i.radius)
                <= f64::from(o.radius),
        ),
        _ => {
            let points = outline(inner)?;
            let mut all = true;
            for p in points {
                all &= contains_point(outer, p)?;
            }
            Some(all)
        }
    }
}

/// A location from degrees: latitude in [-90, 90], longitude in (-180, 180].
pub fn location(lat: f64, lon: f64) -> Result<TwoDLocation, String> {
    if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) || lon == -180.0 {
        return Err("latitude must be in [-90, 90] and longitude in (-180, 180]".into());
    }
    Ok(TwoDLocation {
        latitude: crate::asn::Latitude(((lat * 1e7).round() as i32).into()),
        longitude: crate::asn::Longitude(
            crate::asn::OneEightyDegreeInt((lon * 1e7).round() as i32),
        ),
    })
}

/// Parses a region written on a command line or in configuration:
/// `circle:LAT,LON,RADIUS_M`, `rect:NORTH,WEST,SOUTH,EAST`, `polygon:LAT,LON;LAT,LON;LAT,LON…`
/// (degrees) or `countries:CODE,CODE…` (UN M.49 numeric country codes).
pub fn parse_region(spec: &str) -> crate::Result<GeographicRegion> {
    use crate::asn::{
        PolygonalRegion, SequenceOfIdentifiedRegion, SequenceOfRectangularRegion, UnCountryId,
    };
    let bad = |why: &str| crate::Error::InvalidRequest(format!("region '{spec}': {why}"));
    let numbers = |text: &str, n: Option<usize>| -> crate::Result<Vec<f64>> {
        let values: Vec<f64> = text
            .split(',')
            .map(|v| v.trim().parse::<f64>().map_err(|_| bad("not a number")))
            .collect::<crate::Result<_>>()?;
        match n {
            Some(n) if values.len() != n => Err(bad(&format!("expected {n} numbers"))),
            _ => Ok(values),
        }
    };
    let location = |lat: f64, lon: f64| location(lat, lon).map_err(|e| bad(&e));
    let (kind, body) = spec
        .split_once(':')
        .ok_or_else(|| bad("expected KIND:VALUES"))?;
    match kind {
        "circle" => {
            let v = numbers(body, Some(3))?;
            if !(0.0..=65535.0).contains(&v[2]) {
                return Err(bad("the radius is 0 to 65535 metres"));
            }
            Ok(GeographicRegion::CircularRegion(CircularRegion {
                center: location(v[0], v[1])?,
                radius: v[2] as u16,
            }))
        }
        "rect" => {
            let v = numbers(body, Some(4))?;
            if v[0] < v[2] || v[1] > v[3] {
                return Err(bad("north must be ≥ south and west ≤ east"));
            }
            Ok(GeographicRegion::RectangularRegion(
                SequenceOfRectangularRegion(vec![RectangularRegion {
                    north_west: location(v[0], v[1])?,
                    south_east: location(v[2], v[3])?,
                }]),
            ))
        }
        "polygon" => {
            let points = body
                .split(';')
                .map(|p| {
                    let v = numbers(p, Some(2))?;
                    location(v[0], v[1])
                })
                .collect::<crate::Result<Vec<_>>>()?;
            if points.len() < 3 {
                return Err(bad("a polygon has at least 3 points"));
            }
            Ok(GeographicRegion::PolygonalRegion(PolygonalRegion(points)))
        }
        "countries" => {
            let codes = body
                .split(',')
                .map(|c| {
                    c.trim()
                        .parse::<u16>()
                        .map_err(|_| bad("a country code is 0 to 65535"))
                })
                .collect::<crate::Result<Vec<_>>>()?;
            Ok(GeographicRegion::IdentifiedRegion(
                SequenceOfIdentifiedRegion(
                    codes
                        .into_iter()
                        .map(|c| IdentifiedRegion::CountryOnly(UnCountryId(c)))
                        .collect(),
                ),
            ))
        }
        _ => Err(bad("the kind is circle, rect, polygon or countries")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(spec: &str) -> GeographicRegion {
        parse_region(spec).expect("a valid spec")
    }

    #[test]
    fn circles_contain_smaller_circles_and_points() {
        let big = region("circle:50.85,4.35,50000");
        let small = region("circle:50.9,4.4,10000");
        assert_eq!(contains_region(&big, &small), Some(true));
        assert_eq!(contains_region(&small, &big), Some(false));
        assert_eq!(
            contains_point(
                &big,
                Point {
                    lat: 48.86,
                    lon: 2.35
                }
            ),
            Some(false)
        );
    }

    #[test]
    fn rectangles_and_polygons_hold_what_is_inside_them() {
        let rect = region("rect:52,3,50,6");
        assert_eq!(
            contains_region(&rect, &region("circle:51,4.5,10000")),
            Some(true)
        );
        assert_eq!(
            contains_region(&rect, &region("circle:51.8,4.5,60000")),
            Some(false)
        );
        let triangle = region("polygon:50,3;52,3;51,6");
        assert_eq!(
            contains_point(
                &triangle,
                Point {
                    lat: 51.0,
                    lon: 4.0
                }
            ),
            Some(true)
        );
        assert_eq!(
            contains_point(
                &triangle,
                Point {
                    lat: 51.9,
                    lon: 5.9
                }
            ),
            Some(false)
        );
        assert_eq!(contains_region(&rect, &triangle), Some(true));
    }

    #[test]
    fn identified_regions_compare_by_code_and_borders_are_unknown() {
        let eu = region("countries:56,250,276");
        assert_eq!(
            contains_region(&eu, &region("countries:56,276")),
            Some(true)
        );
        assert_eq!(
            contains_region(&eu, &region("countries:56,380")),
            Some(false)
        );
        assert_eq!(
            contains_region(&eu, &region("circle:50.85,4.35,1000")),
            None
        );
        assert_eq!(
            contains_point(
                &eu,
                Point {
                    lat: 50.0,
                    lon: 4.0
                }
            ),
            None
        );
    }

    #[test]
    fn bad_specs_are_refused_with_the_reason() {
        for spec in [
            "circle:1,2",
            "rect:50,3,52,6",
            "polygon:1,2;3,4",
            "countries:x",
            "oval:1",
            "circle:91,0,5",
        ] {
            assert!(parse_region(spec).is_err(), "{spec}");
        }
    }
}
